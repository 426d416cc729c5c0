"""End to end: the tiny pipeline, kill-and-resume, self-play details, komi."""

import json
import logging
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import popucom
from popucom.data import read_shard
from popucom.infer import TinyEvaluator
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import PipelineConfig, pipeline_preset
from popucom.pipeline.run_dir import RunDir
from popucom.selfplay import KomiSampler, SelfPlayConfig, run_selfplay


def selfplay_games(run: Path, iteration: int) -> list[dict]:
    games = []
    for f in sorted((run / "selfplay").glob(f"iter{iteration:04d}-*.games.jsonl")):
        games += [json.loads(line) for line in f.read_text().splitlines()]
    return games


def test_tiny_pipeline_two_iterations(tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="popucom")
    assert run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False) == 1
    # The second iteration resumes with another backend (allowed: it changes no data), and
    # --stop-after 0 ends the run at the first iteration's end.
    resumed = pipeline_preset("tiny", backend="torch")
    assert run_pipeline(tmp_path, resumed, iterations=None, progress=False, stop_after_minutes=0) == 2
    assert any("stopping after iteration 2" in line for line in caplog.messages)
    logs = caplog.messages  # the progress lines the pipeline logs (and `popucom pipeline` prints)
    assert any("torch cpu" in line for line in logs)  # torch is torch (the native forward is a backend of its own)
    assert any("onnxruntime cpu" in line for line in logs)
    run = RunDir(tmp_path)
    for k in range(3):
        assert run.checkpoint(k).exists() and run.model(k).exists()
    assert PipelineConfig.load(run.config).preset == "tiny"
    for k in range(2):
        games = selfplay_games(tmp_path, k)
        assert len(games) == 12
        for g in games:  # every record replays to its result
            replay = popucom.Game.from_record(g["moves"], komi=g["komi"])
            assert replay.is_over and {"black": 1, "white": 2, "draw": 3}[g["result"]] == int(replay.result)
    metrics = [json.loads(line) for line in run.metrics.read_text().splitlines()]
    assert [m["iteration"] for m in metrics] == [1, 2]
    assert metrics[0]["selfplay"]["games"] == 12 and metrics[0]["train"]["step"] == 8
    evaluation = json.loads(run.evaluation(2).read_text())
    assert evaluation["vs_previous"]["games"] == 2 and evaluation["vs_baseline"]["games"] == 2
    assert "model_0002" in evaluation["ratings"] and evaluation["anchor"] == "greedy"
    assert (tmp_path / "komi_stats.json").exists()
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    assert any("done in" in line for line in logs)
    # One number per iteration: its stages' lines and its summary say the same one.
    for number in (1, 2):
        tagged = [
            line.split(" ", 2)[2].split(":")[0].split(" ")[0] for line in logs if line.startswith(f"[iter {number}] ")
        ]
        assert {"self-play", "train", "exported", "done"} <= set(tagged), (number, tagged)
    assert not any(line.startswith("[iter 0]") or line.startswith("[iter 3]") for line in logs)
    # Resuming a finished run does nothing new, and a changed config is refused.
    assert run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=2, progress=False) == 2
    assert len(run.metrics.read_text().splitlines()) == 2
    with pytest.raises(ValueError, match="another configuration"):
        run_pipeline(tmp_path, pipeline_preset("tiny", games_per_iteration=99), iterations=2, progress=False)


def test_kill_mid_selfplay_and_resume(tmp_path) -> None:
    """Kill the pipeline as soon as its first self-play chunk is on disk, resume, check the data."""
    run = tmp_path / "run"
    code = (
        "import sys; from popucom.pipeline import run_pipeline; "
        "from popucom.pipeline.config import pipeline_preset;"
        "run_pipeline(sys.argv[1], pipeline_preset('tiny', games_per_iteration=36), iterations=1, progress=False)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(run)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and not list((run / "selfplay").glob("iter0000-*.pcs")):
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    chunks_before = sorted(p.name for p in (run / "selfplay").glob("iter0000-*.pcs"))
    assert 1 <= len(chunks_before) < 6  # killed mid-stage
    assert not (run / "checkpoints" / "iter_0001.pt").exists()
    run_pipeline(run, pipeline_preset("tiny", games_per_iteration=36), iterations=1, progress=False)
    games = selfplay_games(run, 0)
    assert len(games) == 36  # complete ...
    ids = np.concatenate([np.asarray(read_shard(p).arrays["game_id"]) for p in (run / "selfplay").glob("*.pcs")])
    shard_games = sum(read_shard(p).header["meta"]["games"] for p in (run / "selfplay").glob("*.pcs"))
    assert shard_games == 36  # ... and not duplicated
    assert len(set(ids.tolist())) == read_shard_total_games(run)
    assert set(chunks_before) <= {p.name for p in (run / "selfplay").glob("*.pcs")}  # nothing lost
    assert not list(run.rglob("*.tmp"))
    assert RunDir(run).model(1).exists()


def read_shard_total_games(run: Path) -> int:
    return sum(read_shard(p).header["num_games"] for p in (run / "selfplay").glob("*.pcs"))


def test_selfplay_targets_and_records(tmp_path) -> None:
    config = SelfPlayConfig(
        concurrent_games=8, full_visits=24, fast_visits=6, full_search_prob=0.5, games_per_chunk=5, max_random_plies=3
    )
    komi = KomiSampler()
    stats = run_selfplay(TinyEvaluator(), config, tmp_path, "t", 10, komi, tmp_path / "komi.json", progress=False)
    assert stats.games == 10 and stats.positions > 0 and stats.nn_evals > 0
    assert len(stats.chunks) == 2
    rows = [read_shard(p) for p in sorted(tmp_path.glob("*.pcs"))]
    policy = np.concatenate([np.asarray(s.arrays["policy"], np.float32) for s in rows])
    assert np.allclose(policy.sum(1), 1, atol=1e-2)
    states = np.concatenate([np.asarray(s.arrays["state"]) for s in rows])
    for state, target in zip(states, policy):
        position = popucom.Position.unpack(state)
        assert set(np.flatnonzero(target)) <= set(position.legal_moves())
    assert KomiSampler.load(tmp_path / "komi.json").games == 10


def test_adaptive_komi_moves_towards_balance(tmp_path) -> None:
    sampler = KomiSampler(warmup_games=10)
    rng = random.Random(0)
    for _ in range(400):
        sampler.record(rng.randint(-12, 2))  # White usually ahead by ~5 floors
    assert 3 <= sampler.fair_komi() <= 7
    draws = [sampler.sample(rng) for _ in range(500)]
    assert 2 <= float(np.mean(draws)) <= 8
    sampler.record(0, no_legal_move_winner="black")
    sampler.save(tmp_path / "k.json")
    again = KomiSampler.load(tmp_path / "k.json", warmup_games=10)
    assert again.fair_komi() == sampler.fair_komi()
    (tmp_path / "bad.json").write_text("{oops")
    with pytest.raises(ValueError, match="corrupt"):
        KomiSampler.load(tmp_path / "bad.json")


def test_missing_backends_fail_loudly(tmp_path) -> None:
    with pytest.raises((RuntimeError, ValueError)):
        run_pipeline(tmp_path, pipeline_preset("tiny", backend="trt"), iterations=1, progress=False)
    with pytest.raises(ValueError, match="unknown pipeline preset"):
        pipeline_preset("laptop")
