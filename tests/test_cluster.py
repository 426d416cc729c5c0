"""--ray-address: self-play on local Ray actors (skips with the reason when Ray is missing or cannot start)."""

import json

import pytest

from popucom.pipeline.config import pipeline_preset
from popucom.pipeline.run import RunDir


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray", reason="Ray is not installed (the [cluster] extra)")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"Ray cannot start a local instance here: {e}")
    yield ray
    ray.shutdown()


def test_cluster_selfplay_one_iteration(ray_local, tmp_path) -> None:
    from popucom.pipeline.cluster import run_cluster_pipeline

    logs = []
    run_cluster_pipeline(tmp_path, pipeline_preset("tiny"), 1, "local", workers=2, progress=False, log=logs.append)
    run = RunDir(tmp_path)
    assert run.model(1).exists()
    games = [json.loads(line) for f in run.selfplay.glob("iter0000-*.games.jsonl")
             for line in f.read_text().splitlines()]
    assert len(games) == 12
    metrics = json.loads(run.metrics.read_text().splitlines()[0])
    assert metrics["selfplay"]["workers"] == 2 and metrics["selfplay"]["games"] == 12
    assert any("Ray" in line for line in logs)
