"""The warm start's one estimate for the bot games and the training together
(popucom/pipeline/warm_start_progress.py), and the bar the warm start shows from its start."""

import pytest

from popucom.pipeline import warm_start_progress
from popucom.pipeline.config import WarmStartConfig, pipeline_preset
from popucom.pipeline.warm_start import warm_start
from popucom.pipeline.warm_start_progress import WarmStartProgress, expected_steps, time_a_step
from popucom.train.trainer import load_checkpoint


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_estimate_adds_the_games_left_and_the_steps_left() -> None:
    clock = Clock()
    overall = WarmStartProgress(games=10, games_done=0, steps=100, seconds_per_step=0.5, enabled=False, clock=clock)
    assert overall.seconds_left() is None and "time left after the first game" in overall.text()
    clock.now += 4
    overall.game_done()
    overall.game_done()  # 2 s a game
    assert overall.seconds_left() == pytest.approx(8 * 2 + 100 * 0.5)
    assert overall.text() == "games 2/10, training 0/~100 steps, about 66 s left"
    clock.now += 16
    for _ in range(8):
        overall.game_done()
    overall.start_training(80)  # counted from the games' positions
    assert overall.seconds_left() == pytest.approx(80 * 0.5)
    clock.now += 60  # the one-off compile
    overall.step_done()
    for _ in range(4):
        clock.now += 0.2
        overall.step_done()
    assert overall.seconds_left() == pytest.approx(75 * 0.2)  # the median step: the compile left out
    assert overall.text() == "games 10/10, training 5/80 steps, about 15 s left"


def test_games_already_written_count_as_done() -> None:
    clock = Clock()
    overall = WarmStartProgress(games=100, games_done=100, steps=40, seconds_per_step=2.0, enabled=False, clock=clock)
    assert overall.seconds_left() == pytest.approx(80.0) and "about 80 s left" in overall.text()
    assert expected_steps(1200, 2.0, 128) == 862  # the benchmark's warm start: 1,200 games, 862 steps


def test_the_warm_start_shows_one_bar_for_games_and_training_from_its_start(tmp_path, monkeypatch) -> None:
    config = pipeline_preset("tiny", ladder=None, warm_start=WarmStartConfig(bot="uct:20", games=6, epochs=1.0))
    made = []
    init = WarmStartProgress.__init__

    def spy(overall, *args, **kwargs):
        init(overall, *args, **kwargs)
        made.append((overall, overall.text()))

    monkeypatch.setattr(WarmStartProgress, "__init__", spy)
    shown = []
    show = WarmStartProgress.show
    monkeypatch.setattr(WarmStartProgress, "show", lambda overall: (show(overall), shown.append(overall.text())))
    figures = warm_start(tmp_path, config, bot="uct:20", games=6, epochs=1.0, progress=True)
    [(overall, first)] = made
    # From the start: the training's seconds a step are timed before the games begin.
    assert first.startswith("games 0/6, training 0/~") and overall.seconds_per_step > 0
    assert any(text.startswith("games 1/6,") and "left" in text for text in shown)
    assert shown[-1] == f"games 6/6, training {figures['steps']}/{figures['steps']} steps, about 0 s left"
    assert overall.bar.n == 100


def test_timing_a_step_leaves_the_warm_start_as_it_was(tmp_path) -> None:
    """The probe step's Trainer is thrown away: with or without the bar, the same network."""
    import torch

    config = pipeline_preset("tiny", ladder=None, warm_start=WarmStartConfig(bot="uct:20", games=6, epochs=1.0))
    assert 0 < time_a_step(config.model, config.train) < 60
    for name, progress in (("quiet", False), ("shown", True)):
        warm_start(tmp_path / name, config, bot="uct:20", games=6, epochs=1.0, progress=progress)
    quiet, shown = (load_checkpoint(tmp_path / name / "checkpoints" / "iter_0000.pt") for name in ("quiet", "shown"))
    assert quiet.step == shown.step
    for key, value in quiet.state["model"].items():
        assert torch.equal(value, shown.state["model"][key]), key
    assert warm_start_progress.duration(30) == "30 s" and warm_start_progress.duration(1500) == "25 min"
