"""The board widget: draws one position and reports clicks; it holds no game logic.

Layers, bottom to top: painted floors (Black's and White's colours), the legal
moves of the side to move (small dots), an optional heat map (visit or policy
shares), stones, the last-move mark, and a principal-variation preview (numbered
ghost stones). Hit-testing is arithmetic on the square size.

Orientation as in docs/rules.md (Coordinates and records) and the engine's showboard: square = row * 9 + col, row 0 (the
rank labelled 1) at the top, col 0 (file a) at the left, so a1 is the top-left cell, i1
the top-right, a9 the bottom-left. File letters run along the top, rank numbers down the
left. square_rect and square_at are the only places that map squares to pixels.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from .. import _core

N = _core.BOARD_SIZE
BOARD_COLOUR = QColor(222, 196, 140)
FLOOR_COLOURS = {_core.Color.BLACK: QColor(90, 110, 170), _core.Color.WHITE: QColor(240, 170, 150)}
STONE_COLOURS = {_core.Color.BLACK: QColor(20, 20, 20), _core.Color.WHITE: QColor(250, 250, 250)}
HEAT_COLOUR = QColor(40, 200, 90)
COORD_MARGIN = 22  # pixels for the coordinates, left of and above the board


class BoardWidget(QWidget):
    squareClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.position = _core.Position()
        self.last_move: int | None = None
        self.heat: np.ndarray | None = None  # (81,) shares in [0, 1]
        self.preview: list[int] = []  # a principal variation to show as numbered ghost stones
        self.show_legal = True
        self.setMinimumSize(300, 300)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)

    # --- state ------------------------------------------------------------------------
    def set_position(self, position: _core.Position, last_move: int | None) -> None:
        self.position, self.last_move = position, last_move
        self.preview = []
        self.update()

    def set_heat(self, heat: np.ndarray | None) -> None:
        self.heat = heat
        self.update()

    def set_preview(self, moves: list[int]) -> None:
        self.preview = list(moves)
        self.update()

    # --- geometry ---------------------------------------------------------------------
    def _board_rect(self) -> QRectF:
        side = min(self.width(), self.height()) - COORD_MARGIN - 4
        return QRectF(COORD_MARGIN, COORD_MARGIN, side, side)

    def square_rect(self, square: int) -> QRectF:
        """The cell of `square`: row 0 is the top row, col 0 the left column."""
        board = self._board_rect()
        cell = board.width() / N
        row, col = divmod(square, N)
        return QRectF(board.left() + col * cell, board.top() + row * cell, cell, cell)

    def square_at(self, point: QPointF) -> int | None:
        """The square under `point` (the inverse of square_rect), None off the board."""
        board = self._board_rect()
        if not board.contains(point):
            return None
        cell = board.width() / N
        col = int((point.x() - board.left()) // cell)
        row = int((point.y() - board.top()) // cell)
        return row * N + col if 0 <= row < N and 0 <= col < N else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            square = self.square_at(event.position())
            if square is not None:
                self.squareClicked.emit(square)

    # --- drawing ----------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        board = self._board_rect()
        cell = board.width() / N
        p.fillRect(board, BOARD_COLOUR)
        pos = self.position
        legal = set(pos.legal_moves()) if self.show_legal and not pos.is_over else set()
        heat_max = float(self.heat.max()) if self.heat is not None else 0.0
        font = QFont(self.font())
        font.setPixelSize(max(8, int(cell * 0.28)))
        p.setFont(font)
        for sq in range(N * N):
            r = self.square_rect(sq)
            floor = pos.floor_at(sq)
            if floor is not None:
                p.fillRect(r.adjusted(1, 1, -1, -1), FLOOR_COLOURS[floor])
            if self.heat is not None and heat_max > 0 and self.heat[sq] > 0:
                # A disc whose area follows the share relative to the best move, so the floor
                # colour underneath stays readable.
                share = float(self.heat[sq]) / heat_max
                colour = QColor(HEAT_COLOUR)
                colour.setAlphaF(0.35 + 0.45 * share)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(colour)
                p.drawEllipse(r.center(), cell * 0.42 * share**0.5, cell * 0.42 * share**0.5)
            stone = pos.stone_at(sq)
            if stone is not None:
                self._stone(p, r, stone, 1.0)
            elif sq in legal:
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(QColor(0, 0, 0, 60))
                p.drawEllipse(r.center(), cell * 0.07, cell * 0.07)
        p.setPen(QPen(QColor(60, 50, 30), 1))
        for i in range(N + 1):
            p.drawLine(QPointF(board.left() + i * cell, board.top()), QPointF(board.left() + i * cell, board.bottom()))
            p.drawLine(QPointF(board.left(), board.top() + i * cell), QPointF(board.right(), board.top() + i * cell))
        if self.last_move is not None:
            r = self.square_rect(self.last_move)
            p.setPen(QPen(QColor(220, 30, 30), max(2.0, cell * 0.06)))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(r.adjusted(cell * 0.08, cell * 0.08, -cell * 0.08, -cell * 0.08))
        if self.heat is not None:
            p.setPen(QColor(0, 70, 20))
            for sq in np.argsort(-self.heat)[:5]:
                if self.heat[sq] > 0.02 and pos.stone_at(int(sq)) is None:
                    p.drawText(
                        self.square_rect(int(sq)),
                        Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignRight,
                        f"{100 * self.heat[sq]:.0f} ",
                    )
        self._draw_preview(p, cell)
        p.setPen(QColor(40, 40, 40))
        for rect, text in self.coordinate_labels():
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        p.end()

    def coordinate_labels(self) -> list[tuple[QRectF, str]]:
        """File letters above the columns and rank numbers left of the rows, named as the
        engine names the squares (square_to_text), so the labels follow square_rect."""
        labels = []
        for i in range(N):
            column, row = self.square_rect(i), self.square_rect(i * N)
            labels.append((QRectF(column.left(), 0, column.width(), COORD_MARGIN - 2), _core.square_to_text(i)[0]))
            labels.append((QRectF(0, row.top(), COORD_MARGIN - 4, row.height()), _core.square_to_text(i * N)[1:]))
        return labels

    def _stone(self, p: QPainter, r: QRectF, colour: _core.Color, alpha: float) -> None:
        fill = QColor(STONE_COLOURS[colour])
        fill.setAlphaF(alpha)
        p.setPen(QPen(QColor(0, 0, 0, int(255 * alpha)), 1))
        p.setBrush(fill)
        p.drawEllipse(r.center(), r.width() * 0.38, r.height() * 0.38)

    def _draw_preview(self, p: QPainter, cell: float) -> None:
        if not self.preview:
            return
        position = self.position
        for i, move in enumerate(self.preview, 1):
            if position.is_over or not position.is_legal(move):
                break
            colour = position.to_move
            r = self.square_rect(move)
            self._stone(p, r, colour, 0.7)
            p.setPen(STONE_COLOURS[_core.Color(1 - int(colour))])
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, str(i))
            position = position.play(move)
