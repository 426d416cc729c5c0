"""A bot's session (popucom/search/bot_session.py) has a model session's calls: it follows the
game, answers search() in the caller's thread and start() in one of its own, and refuses an
analysis (a search without a budget)."""

from __future__ import annotations

import re
import threading

import pytest

from popucom import _core
from popucom.search.bot_session import BOT_ANALYSIS, BotSession


def test_a_bot_session_follows_the_game_and_moves_in_a_thread_of_its_own() -> None:
    session = BotSession(_core.Bot("greedy"))
    assert not session.analyzes and not session.running
    start = _core.Position()
    session.follow(start, _core.parse_square("e5"))
    assert session.position.ply == 1
    done = threading.Event()
    results = []
    session.start(visits=1, on_done=lambda r: (results.append(r), done.set()))
    assert done.wait(10)
    (result,) = results
    assert session.position.is_legal(session.move_to_play(result)) and result.visits == 0
    session.stop()  # nothing runs: returns at once
    assert not session.running


def test_a_bot_session_refuses_an_analysis_and_a_finished_game() -> None:
    session = BotSession(_core.Bot("random"))
    with pytest.raises(ValueError, match=re.escape(BOT_ANALYSIS)):
        session.start()
    position = _core.Position()
    while not position.is_over:
        position = position.play(next(iter(position.legal_moves())))
    session.set_position(position)
    with pytest.raises(ValueError, match="the game is over"):
        session.start(visits=1)
