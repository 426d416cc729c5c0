"""One board orientation everywhere (docs/rules.md, Coordinates and records): square = row * 9 + col,
row 0 at the top, so a1 (square 0) is the top-left cell, i1 the top-right, a9 the bottom-left. The engine's
showboard draws it so; the GUI must show the same board and hit-test it the same way."""

import io
import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPointF, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from popucom import _core  # noqa: E402
from popucom.engine.gtp import Engine  # noqa: E402
from popucom.gui.board_view import STONE_COLOURS  # noqa: E402

sq = _core.parse_square
N = _core.BOARD_SIZE


def pixel(image, point: QPointF) -> tuple[int, int, int]:
    colour = QColor(image.pixel(point.toPoint()))
    return colour.red(), colour.green(), colour.blue()


def near(rgb: tuple[int, int, int], colour: QColor, tolerance: int = 8) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, (colour.red(), colour.green(), colour.blue())))


def test_a_stone_the_engine_plays_at_a1_shows_in_the_top_left_cell(make_window, tmp_path) -> None:
    # The engine, driven through its command interface as a user would.
    engine = Engine("greedy", out=io.StringIO())
    engine.serve(io.BytesIO(b"play b a1\nplay w i9\nshowboard\nquit\n"))
    replies = engine.out.getvalue().split("\n\n")
    assert replies[:2] == ["=", "="], replies
    showboard = replies[2].splitlines()
    assert showboard[2].split()[:2] == ["a", "b"] and showboard[3].split()[:3] == ["1", "X", "."]  # a1 top-left
    assert showboard[11].split()[:10] == ["9", ".", ".", ".", ".", ".", ".", ".", ".", "O"]  # i9 bottom-right
    # Its game, opened in the GUI as a game record.
    record = tmp_path / "engine.jsonl"
    record.write_text(json.dumps({"black": "me", "white": "engine", "moves": engine.game.record}) + "\n")
    window = make_window("greedy", mode="human-human")
    assert window.open_path(record)
    window.go_to(window.tree.root.line_end())
    board = window.board
    assert board.position.stone_at(0) == _core.Color.BLACK and board.last_move == sq("i9")

    # Geometry: a1 is the top-left cell, rows run down, columns across.
    cells = [board.square_rect(s) for s in range(N * N)]
    assert cells[sq("a1")].topLeft() == board._board_rect().topLeft()
    corner = cells[sq("i9")].bottomRight()
    assert (corner.x(), corner.y()) == pytest.approx((board._board_rect().right(), board._board_rect().bottom()))
    for s, rect in enumerate(cells):
        row, col = divmod(s, N)
        assert rect.top() == pytest.approx(cells[0].top() + row * rect.height())
        assert rect.left() == pytest.approx(cells[0].left() + col * rect.width())
        assert board.square_at(rect.center()) == s  # hit-testing is its inverse
    assert cells[sq("i1")].top() == cells[0].top() and cells[sq("i1")].left() > cells[0].left()
    assert cells[sq("a9")].left() == cells[0].left() and cells[sq("a9")].top() > cells[0].top()

    # Rendered: a black stone at the centre of the top-left cell, a white one bottom-right.
    image = board.grab().toImage()
    assert image.width() == board.width()  # one image pixel per widget pixel offscreen
    assert near(pixel(image, cells[sq("a1")].center()), STONE_COLOURS[_core.Color.BLACK])
    assert near(pixel(image, cells[sq("i9")].center()), STONE_COLOURS[_core.Color.WHITE])
    assert not near(pixel(image, cells[sq("a9")].center()), STONE_COLOURS[_core.Color.BLACK])

    # The labels name rank 1 at the top and file a on the left, beside their cells.
    labels = board.coordinate_labels()
    ranks = {text: rect for rect, text in labels if text.isdigit()}
    files = {text: rect for rect, text in labels if text.isalpha()}
    assert sorted(ranks) == [str(i) for i in range(1, N + 1)] and sorted(files) == list("abcdefghi")
    for i in range(N):
        assert ranks[str(i + 1)].center().y() == pytest.approx(cells[i * N].center().y())
        assert files["abcdefghi"[i]].center().x() == pytest.approx(cells[i].center().x())
    assert ranks["1"].top() < ranks["9"].top() and files["a"].left() < files["i"].left()


def test_a_click_in_the_top_left_cell_plays_a1(make_window, qtbot) -> None:
    window = make_window("greedy", mode="human-human")
    board = window.board
    grid = board._board_rect()  # the cell's centre from the board's frame, not from square_rect
    top_left = grid.topLeft() + QPointF(grid.width() / N / 2, grid.height() / N / 2)
    qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=top_left.toPoint())
    assert window.tree.current.move == sq("a1") == 0
    assert window.tree.position.stone_at(0) == _core.Color.BLACK
    # The bottom-left cell is a9 for the reply.
    bottom_left = board.square_rect(sq("a9")).center()
    qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=bottom_left.toPoint())
    assert window.tree.current.move == sq("a9") == 72
