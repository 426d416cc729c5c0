"""The difficulty levels' table (popucom/levels.py): every spec parses to a player, names and
players are distinct, ratings rise from the weakest to `strongest`, which is the play default,
and an unknown name is an error that lists the levels."""

import pytest

import popucom.player as player_module
from popucom import _core
from popucom.infer import TinyEvaluator
from popucom.levels import LEVELS, STRONGEST, level_named, level_names
from popucom.player import MAX_TEMPERATURE
from popucom.player_spec import DEFAULT_VISITS, PlayerSpec


def test_the_table_is_well_formed() -> None:
    assert len(LEVELS) >= 5 and level_names()[0] == "beginner" and STRONGEST.name == "strongest"
    assert len(set(level_names())) == len(LEVELS)
    assert len({level.player_name for level in LEVELS}) == len(LEVELS)
    ratings = [level.rating for level in LEVELS]
    assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings), ratings
    for level in LEVELS:
        spec = level.player_spec()
        assert spec.is_network, level.name
        assert 0.0 <= level.temperature <= MAX_TEMPERATURE and 0 < level.temperature_plies <= _core.MAX_GAME_PLIES
        assert level.description and "\n" not in level.description and level.name.isascii()


def test_strongest_is_the_play_default() -> None:
    assert STRONGEST.temperature == 0.0
    assert STRONGEST.player_spec() == PlayerSpec.parse("best")
    assert STRONGEST.player_spec().visits == DEFAULT_VISITS


def test_an_unknown_level_lists_the_levels() -> None:
    assert level_named("novice").name == "novice"
    with pytest.raises(ValueError, match="unknown level 'grandmaster': choose one of beginner, novice, "):
        level_named("grandmaster")


def test_a_level_is_a_player_with_its_temperature(monkeypatch) -> None:
    monkeypatch.setattr(player_module, "load_evaluator", lambda *args, **kwargs: TinyEvaluator())
    beginner = LEVELS[0]
    player = beginner.player(seed=3)
    assert player.name == beginner.player_name and player.visits == beginner.player_spec().visits
    assert player.move_temperature(0) == beginner.temperature > 0
    assert STRONGEST.player().move_temperature(0) == 0.0


def test_player_temperature_is_checked() -> None:
    with pytest.raises(ValueError, match="temperature must be from 0 to"):
        player_module.Player("x", evaluator=TinyEvaluator(), temperature=float("nan"))
    with pytest.raises(ValueError, match="a bot has no visit counts"):
        player_module.Player("x", bot="greedy", temperature=1.0)
    late = player_module.Player("x", evaluator=TinyEvaluator(), temperature=2.0, temperature_plies=4)
    assert [late.move_temperature(ply) for ply in (0, 3, 4, 40)] == [2.0, 2.0, 0.0, 0.0]
