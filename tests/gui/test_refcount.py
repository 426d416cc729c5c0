"""Painting must not leak or drop references to None.

PySide6 6.12.0's QPainter bindings return None from void calls (drawEllipse, fillRect, setPen,
drawLine...) without the reference they owe it: on CPython 3.11 sys.getrefcount(None) falls by
one per call, and after enough repaints the GUI dies with "Fatal Python error: none_dealloc".
pyproject.toml keeps PySide6 below 6.12 for it; this test is the check to run before lifting
that bound. It paints the board and the analysis widgets a few hundred times with every
drawing path on and requires None's count to stay put.
"""

import gc
import sys

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from popucom import _core  # noqa: E402

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="None is immortal from Python 3.12 (PEP 683): its reference count never moves, so cannot show the bug",
)

ROUNDS = 200
TOLERANCE = 50  # 6.11.2 and 6.11.3: 0 over 200 rounds; 6.12.0: -616 in the first round
# References to None this test gives back when painting took them, so that a failing run
# reports its assertion instead of aborting the whole session later with none_dealloc.
_GIVEN_BACK: list[None] = []


def test_painting_keeps_the_reference_count_of_none(midgame_window) -> None:
    window = midgame_window
    board, panel = window.board, window.panel
    position = board.position
    # Every drawing path is on: both floor colours, both stone colours, legal dots, the heat
    # map with its top-five numbers, the last move, the PV preview; W/D/L bar and chart line.
    floors = {position.floor_at(s) for s in range(_core.NUM_SQUARES)}
    stones = {position.stone_at(s) for s in range(_core.NUM_SQUARES)}
    assert {_core.Color.BLACK, _core.Color.WHITE} <= floors and {_core.Color.BLACK, _core.Color.WHITE} <= stones
    assert position.legal_moves() and board.show_legal and board.last_move == _core.parse_square("f6")
    assert board.heat is not None and board.heat.max() > 0.02
    assert len(board.preview) >= 2 and position.is_legal(board.preview[0])
    assert panel.wdl_bar.wdl is not None and panel.table.rowCount() > 0
    assert sum(v is not None for v in panel.chart.values) >= 2
    widgets = [board, panel.wdl_bar, panel.chart, panel]
    for widget in widgets:  # once first: fonts, glyph and pen caches fill
        widget.grab()
    gc.collect()
    before = sys.getrefcount(None)
    drift, painted = 0, 0
    for _ in range(ROUNDS):
        for widget in widgets:
            widget.grab()
        painted += 1
        drift = sys.getrefcount(None) - before
        if abs(drift) > TOLERANCE:
            break  # a leak is plain after one round; painting on would only bring the abort nearer
    if drift < 0:
        _GIVEN_BACK.extend([None] * -drift)
    assert abs(drift) <= TOLERANCE, (
        f"sys.getrefcount(None) moved by {drift:+d} over {painted} paint(s) of the board and analysis widgets "
        f"(PySide6 {__import__('PySide6').__version__}, tolerance {TOLERANCE}): the Qt bindings drop references "
        "to None; pyproject.toml keeps PySide6 below 6.12 for this"
    )
