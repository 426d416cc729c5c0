"""The strength ladder: points, calibration to random, the refit and the curve."""

import json

import pytest

from popucom.arena.ladder import Ladder, LadderConfig, LadderPoint
from popucom.infer import TinyEvaluator


def small_ladder(folder) -> Ladder:
    return Ladder(
        folder,
        LadderConfig(
            visits=4,
            games=4,
            opponents=("greedy", "uct:50"),
            calibration=(("random", "greedy"), ("greedy", "uct:50")),
            calibration_games=4,
        ),
    )


def test_ladder_points_refit_and_curve(tmp_path) -> None:
    ladder = small_ladder(tmp_path / "ladder")
    summary = ladder.play_point(LadderPoint("model_0000", 0, 0.0, 0), TinyEvaluator)
    assert set(summary) == {"greedy", "uct:50"} and all(s["games"] == 4 for s in summary.values())
    ladder.play_point(LadderPoint("model_0001", 1, 0.25, 1000), TinyEvaluator)
    # a point already played is not played again
    ladder.play_point(LadderPoint("model_0001", 1, 0.25, 1000), lambda: pytest.fail("replayed"))
    assert [p.model for p in ladder.points()] == ["model_0000", "model_0001"]
    ratings = ladder.refit()
    assert ratings["random"].elo == 0 and ratings["greedy"].elo > 0
    assert {"model_0000", "model_0001", "uct:50"} <= set(ratings)
    saved = json.loads((tmp_path / "ladder" / "ratings.json").read_text())
    assert saved["anchor"] == "random" and len(saved["points"]) == 2
    curve = ladder.plot(ratings)
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(ladder.records()) == 2 * 4 + 4 * 2 * 2  # calibration + two points


def test_ladder_config_is_checked_and_round_trips() -> None:
    with pytest.raises(ValueError, match="even"):
        LadderConfig(games=3)
    config = LadderConfig(visits=7)
    assert LadderConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


def test_malformed_points_file_is_named(tmp_path) -> None:
    ladder = small_ladder(tmp_path)
    ladder.points_path.write_text("{not json\n")
    with pytest.raises(ValueError, match="points.jsonl:1"):
        ladder.points()
