"""The engine at a difficulty level: `--level NAME` (not with --player, --visits or --seconds),
`popucom-level [NAME]` to ask or change it mid-game, `popucom-levels` to list them, and an
unknown name answered with the list of levels."""

import io
import subprocess
import sys

import pytest

import popucom.player as player_module
from popucom.engine.gtp import Engine
from popucom.infer import TinyEvaluator
from popucom.levels import LEVELS, level_named

CLI = [sys.executable, "-m", "popucom.cli"]


@pytest.fixture(autouse=True)
def tiny_networks(monkeypatch):
    """Every level's network is TinyEvaluator: the engine's level paths without loading a model."""
    monkeypatch.setattr(player_module, "load_evaluator", lambda *args, **kwargs: TinyEvaluator())


def serve(engine: Engine, text: str) -> list[str]:
    engine.out = io.StringIO()
    engine.serve(io.BytesIO(text.encode()))
    return engine.out.getvalue()[:-2].split("\n\n")


def test_a_level_plays_at_its_own_visits_and_temperature() -> None:
    engine = Engine(level="beginner")
    beginner = level_named("beginner")
    assert engine.level is beginner and engine.visits == beginner.player_spec().visits
    assert engine.player.move_temperature(0) == beginner.temperature
    replies = serve(engine, "popucom-level\ngenmove b\ngenmove w\npopucom-level strongest\npopucom-level\ngenmove b\n")
    assert replies[0] == "= beginner" and replies[3] == "=" and replies[4] == "= strongest"
    assert all(r.startswith("= ") and len(r) == 4 for r in (replies[1], replies[2], replies[5])), replies
    assert engine.visits == 100 and len(engine.game.moves) == 3  # the game went on at the new level


def test_level_commands_answer_errors_and_the_list() -> None:
    engine = Engine("random")
    replies = serve(engine, "popucom-level\npopucom-level grandmaster\npopucom-level a b\npopucom-levels\n")
    assert replies[0] == "=" and engine.level is None  # a player that is no level
    assert replies[1].startswith("? unknown level 'grandmaster': choose one of beginner, novice")
    assert replies[2].startswith("? syntax error: popucom-level [NAME]")
    listed = replies[3][2:].split("\n")
    assert [line.split()[0] for line in listed] == [level.name for level in LEVELS]
    assert listed[0].split()[1] == str(LEVELS[0].rating)
    timed = Engine("random", seconds=1.0)
    assert serve(timed, "popucom-level novice\n")[0].startswith("? level novice plays its own visits")


def test_a_level_goes_alone() -> None:
    with pytest.raises(ValueError, match="give --level or --player, not both"):
        Engine("random", level="novice")
    with pytest.raises(ValueError, match="plays its own visits"):
        Engine(level="novice", visits=50)
    with pytest.raises(ValueError, match="unknown level 'nosuch': choose one of beginner"):
        Engine(level="nosuch")


def test_the_command_line_refuses_bad_levels() -> None:
    out = subprocess.run(
        [*CLI, "engine", "--level", "nosuch"], input="quit\n", capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "unknown level 'nosuch': choose one of beginner, novice" in out.stderr, out.stderr
    out = subprocess.run(
        [*CLI, "engine", "--level", "novice", "--player", "random"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "not allowed with argument" in out.stderr, out.stderr
