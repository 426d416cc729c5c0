"""The GUI's game without a window (popucom/gui/game_controller.py): whose turn it is, the AI's
answers through the bridge, stale answers dropped, the session told every move, and the
signals a window redraws on."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from popucom import _core  # noqa: E402
from popucom.gui.ai import make_opponent  # noqa: E402
from popucom.gui.game_controller import GameController  # noqa: E402

sq = _core.parse_square


def controller(spec: str = "greedy", mode: str = "human-black") -> tuple[GameController, list[str], list[str]]:
    """A controller with what it said and the signals it sent recorded."""
    game = GameController(make_opponent(spec), mode)
    said: list[str] = []
    events: list[str] = []
    game.said.connect(said.append)
    game.changed.connect(lambda: events.append("changed"))
    game.analysisEnded.connect(lambda: events.append("analysis ended"))
    return game, said, events


def test_a_click_is_played_and_the_ai_answers(qtbot) -> None:
    game, said, events = controller()
    game.click(sq("e5"))
    assert game.tree.root.children[0].move == sq("e5") and "changed" in events
    qtbot.waitUntil(lambda: game.tree.position.ply == 2, timeout=10_000)
    assert said[-1].startswith("AI played") and game.thinking_for is None
    game.bridge.shutdown()


def test_clicks_out_of_turn_or_illegal_are_refused_with_the_reason(qtbot) -> None:
    game, said, _ = controller(mode="human-white")
    game.click(sq("e5"))  # Black's turn, and the AI plays Black
    assert game.tree.position.ply == 0 and "AI's turn" in said[-1]
    game.set_mode("human-human")
    game.click(sq("e5"))
    game.click(sq("e5"))
    assert game.tree.position.ply == 1 and "already holds a stone" in said[-1]
    game.bridge.shutdown()


def test_an_answer_for_a_request_given_up_is_dropped(qtbot) -> None:
    game, _, _ = controller(mode="human-human")
    game.ai_move_now()
    token = game.token
    game.cancel()  # the user moved on
    qtbot.waitUntil(lambda: not game.bridge.busy, timeout=10_000)
    game._on_move_chosen(sq("e5"), None, token)  # as the bridge would deliver it late
    assert game.tree.position.ply == 0
    game.bridge.shutdown()


def test_analysis_needs_a_model_and_ends_with_the_game(qtbot, tiny_onnx) -> None:
    game, said, events = controller()
    assert not game.set_analysis(True) and not game.analysis_on and "needs a model" in said[-1]
    game.bridge.shutdown()
    game, said, events = controller(str(tiny_onnx), mode="human-human")
    game.visits = 16
    assert game.set_analysis(True) and game.analysing is game.tree.current
    qtbot.waitUntil(lambda: game.latest is not None, timeout=10_000)
    for move in ("a1", "a9", "b1", "b9", "c1", "c9"):
        game.click(sq(move))
    while not game.tree.position.is_over:  # play it out: analysis ends with the game
        game.click(next(iter(game.tree.position.legal_moves())))
    assert events[-1] == "analysis ended" and said[-1].startswith("Game over")
    game.bridge.shutdown()


def test_every_move_reaches_the_session(qtbot, tiny_onnx) -> None:
    game, _, _ = controller(str(tiny_onnx))
    game.visits = 16
    game.click(sq("e5"))
    qtbot.waitUntil(lambda: game.tree.position.ply == 2, timeout=10_000)
    search = game.bridge.opponent.search
    resets = search.resets
    game.click(next(iter(game.tree.position.legal_moves())))
    qtbot.waitUntil(lambda: game.tree.position.ply == 4, timeout=10_000)
    assert search.resets == resets and search.position == game.tree.position
    game.bridge.shutdown()
