"""The engine's search session is told every move, so one tree serves the whole game."""

from __future__ import annotations

import io

from popucom import _core
from popucom.engine.gtp import Engine


def test_the_tree_survives_the_opponents_move_and_a_jump_resets_it() -> None:
    engine = Engine(player="best", visits=24, out=io.StringIO())
    engine.genmove(["b"])
    reply = engine.search.result().moves[0]["move"]  # the reply the search looked at most
    engine.play(["w", _core.square_to_text(reply)])
    kept = engine.search.visits
    engine.genmove(["b"])
    assert engine.search.resets == 0 and kept > 0  # genmove, play, genmove: one tree
    assert engine.search.position == engine.game.position  # the session follows both sides
    engine.undo([])
    engine.genmove(["b"])  # the undone move is a jump back: searched from a fresh root
    assert engine.search.resets == 1


def test_two_client_moves_in_a_row_keep_the_tree_and_its_visits() -> None:
    """genmove, (an analysis,) play, play, genmove: each move the client plays, either side's,
    moves the session's root into the subtree it had searched, its visits carried over."""
    engine = Engine(player="best", visits=64, out=io.StringIO())
    engine.genmove(["b"])
    resets = engine.search.resets
    engine.search.search(visits=400)  # what an analysis of the position leaves in the tree
    for colour in ("w", "b"):
        most_visited = engine.search.result().moves[0]
        engine.play([colour, _core.square_to_text(most_visited["move"])])
        assert engine.search.visits == most_visited["visits"] > 0
    engine.genmove(["w"])
    assert engine.search.resets == resets  # no move was a jump
    assert engine.search.position == engine.game.position


def test_a_bot_plays_through_a_session_of_its_own() -> None:
    """A bot's session has the model's calls: it follows both sides' moves and answers a search
    with its move where the game stands; it streams no analysis, which the engine refuses."""
    from popucom.player import Player

    session = Player("greedy", bot="greedy").session()
    assert not session.analyzes
    first = _core.Position().play(_core.parse_square("e5"))
    session.follow(_core.Position(), _core.parse_square("e5"))
    assert session.position == first
    move = session.move_to_play(session.search())
    assert first.is_legal(move)
    engine = Engine(player="uct:50", out=io.StringIO())
    engine.genmove(["b"])
    engine.play(["w", _core.square_to_text(next(iter(engine.game.position.legal_moves())))])
    engine.genmove(["b"])
    assert engine.search.position == engine.game.position and len(engine.game.moves) == 3
    replies = serve(engine, "popucom-analyze 10\n")
    assert replies[0].startswith("? analysis needs a model player"), replies


def serve(engine: Engine, text: str) -> list[str]:
    engine.out = io.StringIO()
    engine.serve(io.BytesIO(text.encode()))
    return engine.out.getvalue()[:-2].split("\n\n")
