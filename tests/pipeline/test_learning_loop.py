"""The learning loop's balance and gates: replay ratio, a growing window,
gating that really keeps the previous model, and the ladder stage."""

import dataclasses
import json
import logging

import pytest

from popucom.arena import ratings
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import EvalConfig, PipelineConfig, pipeline_preset


def test_replay_ratio_and_window_growth() -> None:
    config = pipeline_preset("cpu")
    assert config.train_steps(2560) == round(5 * 2560 / 128)
    assert config.train_steps(10) == config.min_steps_per_iteration
    assert config.window_size(5_000) == 20_000
    sizes = [config.window_size(n) for n in (20_000, 100_000, 400_000, 10**8)]
    assert sizes == sorted(sizes) and sizes[0] == 20_000 and sizes[-1] == config.train.window_samples
    assert 20_000 < sizes[1] < 100_000  # grows, but slower than the data
    fixed = dataclasses.replace(config, replay_ratio=0.0, window_min_samples=0)
    assert fixed.train_steps(2560) == fixed.steps_per_iteration and fixed.window_size(5) == fixed.train.window_samples
    restored = PipelineConfig.from_dict(json.loads(json.dumps(config.to_dict())))
    assert restored == config
    # A run written before self-play solved its endgames continues with the solver; a
    # setting the run chose stays.
    older = config.to_dict()
    for name in ("endgame_solve_plies", "endgame_solve_max_nodes"):
        del older["selfplay"]["search"][name]
    older["selfplay"]["search"]["leaves_per_game"] = 3
    search = PipelineConfig.from_dict(older).selfplay.search_params()
    assert (search.endgame_solve_plies, search.endgame_solve_max_nodes, search.leaves_per_game) == (5, 2_000_000, 3)


def selfplay_models(run, iteration: int) -> set[str]:
    names = set()
    for f in (run / "selfplay").glob(f"iter{iteration:04d}-*.games.jsonl"):
        names |= {json.loads(line)["black"] for line in f.read_text().splitlines()}
    return names


def test_gating_keeps_the_previous_model_when_the_new_one_fails(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ratings.SPRT, "decide", lambda self, scores: "H0")
    config = pipeline_preset("tiny", evaluation=EvalConfig(openings=1, visits=4, gating=True), ladder=None)
    run_pipeline(tmp_path, config, iterations=2, progress=False)
    first = json.loads((tmp_path / "eval" / "iter_0001.json").read_text())
    assert first["accepted"] is False and first["previous"] == "model_0000"
    # iteration 2's self-play still uses model 0, and model 2 is gated against it
    assert selfplay_models(tmp_path, 1) == {"model_0000"}
    assert json.loads((tmp_path / "eval" / "iter_0002.json").read_text())["previous"] == "model_0000"


def test_without_gating_the_newest_model_plays(tmp_path) -> None:
    tiny = pipeline_preset("tiny")
    config = dataclasses.replace(tiny, evaluation=dataclasses.replace(tiny.evaluation, every=2))
    run_pipeline(tmp_path, config, iterations=2, progress=False)
    assert selfplay_models(tmp_path, 1) == {"model_0001"}
    # evaluation every 2nd model, against the model 2 iterations older
    assert not (tmp_path / "eval" / "iter_0001.json").exists()
    assert json.loads((tmp_path / "eval" / "iter_0002.json").read_text())["previous"] == "model_0000"
    # the ladder stage ran (every_minutes=0 in the tiny preset): points, ratings, curve, metrics
    ladder = tmp_path / "ladder"
    points = [json.loads(line) for line in (ladder / "points.jsonl").read_text().splitlines()]
    assert [p["model"] for p in points] == ["model_0001", "model_0002"]
    saved = json.loads((ladder / "ratings.json").read_text())
    assert saved["ratings"]["random"]["elo"] == 0 and "model_0002" in saved["ratings"]
    assert (ladder / "curve.png").stat().st_size > 1000
    metrics = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert metrics[-1]["ladder"]["model"] == "model_0002"
    assert metrics[-1]["train"]["new_rows"] > 0


@pytest.mark.parametrize("bad", [{"games": 3}, {"visits": 0}])
def test_bad_ladder_config_is_refused(bad) -> None:
    from popucom.arena.ladder import LadderConfig

    with pytest.raises(ValueError):
        LadderConfig(**bad)


def test_warm_start_writes_iteration_zero_from_bot_games(tmp_path, caplog) -> None:
    from popucom.pipeline.config import WarmStartConfig
    from popucom.train.trainer import load_checkpoint

    config = pipeline_preset("tiny", ladder=None, warm_start=WarmStartConfig(bot="uct:20", games=6, epochs=1.0))
    caplog.set_level(logging.INFO, logger="popucom")
    run_pipeline(tmp_path, config, iterations=1, progress=False)
    assert any("warm start" in line for line in caplog.messages)
    assert json.loads((tmp_path / "warm_start" / "games_done.json").read_text())["games"] == 6
    summary = json.loads((tmp_path / "warm_start" / "summary.json").read_text())
    assert summary["games"] == 6 and 0 < summary["games_s"] <= summary["seconds"] and summary["steps"] >= 1
    assert load_checkpoint(tmp_path / "checkpoints" / "iter_0000.pt").step > 0  # trained, not random
    assert PipelineConfig.load(tmp_path / "config.json").warm_start == config.warm_start


def test_a_long_ladder_schedule_plays_no_point_early_in_a_run(tmp_path) -> None:
    """The first point also waits `every_minutes`, so a short continuation of a shipped model
    (a lent GPU for ten minutes, --ladder-every 1000) spends nothing on the ladder."""
    from popucom.pipeline.run_dir import RunDir
    from popucom.pipeline.stages import Iteration
    from popucom.pipeline.stages_eval import stage_ladder

    tiny = pipeline_preset("tiny")
    config = dataclasses.replace(tiny, ladder=dataclasses.replace(tiny.ladder, every_minutes=1000.0))
    iteration = Iteration(config, RunDir(tmp_path), 0, False, selfplay_stage=None)
    iteration.seconds = {"selfplay": 300.0, "train": 60.0}
    assert stage_ladder(iteration) == {}
    assert not (tmp_path / "ladder").exists() or not any((tmp_path / "ladder").iterdir())
