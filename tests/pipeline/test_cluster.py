"""--ray-address: self-play on local Ray actors (skips with the reason when Ray is missing or cannot start)."""

import json
import logging

import pytest

from popucom.pipeline.config import pipeline_preset
from popucom.pipeline.run_dir import RunDir


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray", reason="Ray is not installed (the [cluster] extra)")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"Ray cannot start a local instance here: {e}")
    yield ray
    ray.shutdown()


def test_cluster_selfplay_one_iteration(ray_local, tmp_path, caplog) -> None:
    from popucom.pipeline.cluster import run_cluster_pipeline

    caplog.set_level(logging.INFO, logger="popucom")
    run_cluster_pipeline(tmp_path, pipeline_preset("tiny"), 1, "local", workers=2, progress=False)
    run = RunDir(tmp_path)
    assert run.model(1).exists()
    games = [
        json.loads(line) for f in run.selfplay.glob("iter0000-*.games.jsonl") for line in f.read_text().splitlines()
    ]
    assert len(games) == 12
    metrics = json.loads(run.metrics.read_text().splitlines()[0])
    assert metrics["selfplay"]["workers"] == 2 and metrics["selfplay"]["games"] == 12
    # the workers' figures reach the head
    selfplay = metrics["selfplay"]
    assert selfplay["positions"] > 0 and selfplay["nn_evals"] > 0 and selfplay["nn_evals_per_s"] > 0
    assert 0 < selfplay["eval_share"] <= 1 and selfplay["positions_per_s"] > 0
    assert any("Ray" in line for line in caplog.messages)


def test_worker_figures_combine() -> None:
    from popucom.pipeline.cluster import combine_worker_stats

    a = {
        "positions": 10,
        "moves": 40,
        "nn_evals": 300,
        "seconds": 10.0,
        "eval_seconds": 9.0,
        "mean_batch": 20.0,
        "max_batch": 32,
        "cache_hit_rate": 0.5,
        "black_wins": 2,
        "white_wins": 1,
        "draws": 0,
    }
    b = {**a, "nn_evals": 100, "mean_batch": 10.0, "cache_hit_rate": 0.1, "eval_seconds": 5.0}
    out = combine_worker_stats([a, b], wall_seconds=10.0)
    assert out["positions"] == 20 and out["nn_evals"] == 400 and out["nn_evals_per_s"] == 40.0
    assert out["eval_share"] == 14.0 / 20.0 and out["mean_batch"] == (20 * 300 + 10 * 100) / 400
    assert abs(out["cache_hit_rate"] - (0.5 * 300 + 0.1 * 100) / 400) < 1e-12 and out["black_wins"] == 4
