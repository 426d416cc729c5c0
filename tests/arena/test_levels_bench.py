"""popucom.experiments.levels on a tiny budget: two levels of a fake network against two bots,
two games a pairing; the JSON line's ratings, checks and pairings, a rerun that plays nothing
new (the games file is reused), and the Markdown tables."""

import json

import pytest

from popucom.arena.match import read_records
from popucom.experiments import levels as experiment
from popucom.infer import TinyEvaluator
from popucom.levels import Level


@pytest.fixture
def tiny_levels(tmp_path, monkeypatch):
    model = tmp_path / "fake.onnx"
    model.write_bytes(b"")
    monkeypatch.setattr(experiment, "load_evaluator", lambda *args, **kwargs: TinyEvaluator())
    return (
        Level("low", f"{model}@visits=2", 0, "two visits, every move sampled", temperature=5.0),
        Level("high", f"{model}@visits=4", 1, "four visits"),
    )


def test_a_tiny_ladder_is_rated_and_resumes(tiny_levels, tmp_path) -> None:
    games = tmp_path / "games.jsonl"
    markdown = tmp_path / "levels.md"
    kwargs = dict(bots=("random", "greedy"), top_bots=("uct:20",), games=2, games_out=games, markdown=markdown)
    result = experiment.rate_levels(tiny_levels, **kwargs)
    json.dumps(result)  # one JSON line
    low, high = (level.player_name for level in tiny_levels)
    assert low == "fake@2,temperature=5" and high == "fake@4"
    pairs = {(r["a"], r["b"]): r["games"] for r in result["pairings"]}
    # calibration along the bots, the neighbours, each level against the bots, the top half uct:20
    assert pairs == {
        ("random", "greedy"): 2,
        ("greedy", "uct:20"): 2,
        (low, high): 2,
        (low, "random"): 2,
        (low, "greedy"): 2,
        (high, "random"): 2,
        (high, "greedy"): 2,
        (high, "uct:20"): 2,
    }
    assert [r["level"] for r in result["levels"]] == ["low", "high"] and result["bots"]["random"]["elo"] == 0
    assert result["weakest_vs_greedy"]["games"] == 2 and isinstance(result["monotone"], bool)
    assert len(read_records(games)) == 16
    again = experiment.rate_levels(tiny_levels, **kwargs)
    assert len(read_records(games)) == 16 and again["levels"] == result["levels"]
    text = markdown.read_text()
    assert "| low | fake@2,temperature=5 |" in text and "| (bot) | random | +0 |" in text


def test_an_odd_budget_is_refused(tiny_levels, tmp_path) -> None:
    with pytest.raises(ValueError, match="even and at least 2"):
        experiment.rate_levels(tiny_levels, games=3, games_out=tmp_path / "g.jsonl")
