"""The analysis panel: win/draw/loss bar, expected score, a win-rate history chart
over the current line, and the top moves with their principal variations.

It only shows what it is given (`show_result`, `set_history`); hovering a row of
the move table emits `pvHovered` with that move's PV so the board can preview it.
Every text goes through tr() and is re-set on a LanguageChange (see language.py).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .. import _core
from ..search.analysis import AnalysisResult

COLUMNS = 6  # move, visits, win %, score, prior %, PV: headers in AnalysisPanel.retranslate


class WdlBar(QWidget):
    """Win / draw / loss of the side to move as one horizontal bar."""

    def __init__(self) -> None:
        super().__init__()
        self.wdl: tuple[float, float, float] | None = None
        self.setMinimumHeight(22)

    def set_wdl(self, wdl: tuple[float, float, float] | None) -> None:
        self.wdl = wdl
        self.update()

    def text(self) -> str:
        """What the bar writes over itself ("" with no W/D/L)."""
        if self.wdl is None:
            return ""
        win, draw, loss = (f"{100 * share:.0f}" for share in self.wdl)
        return self.tr("W {win}%  D {draw}%  L {loss}%").format(win=win, draw=draw, loss=loss)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        r = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        p.fillRect(r, QColor(200, 200, 200))
        if self.wdl is not None:
            x = r.left()
            for share, colour in zip(self.wdl, (QColor(60, 160, 80), QColor(160, 160, 160), QColor(200, 70, 60))):
                w = r.width() * share
                p.fillRect(QRectF(x, r.top(), w, r.height()), colour)
                x += w
            p.setPen(Qt.GlobalColor.white)
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, self.text())
        p.end()


class HistoryChart(QWidget):
    """Black's win rate after each ply of the current line (None where not analysed)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[float | None] = []
        self.current = 0
        self.setMinimumHeight(90)

    def set_history(self, values: list[float | None], current: int) -> None:
        self.values, self.current = values, current
        self.update()

    def text(self) -> str:
        """The chart's title, drawn in its top-left corner."""
        return self.tr("Black win rate")

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = QRectF(self.rect()).adjusted(4, 4, -4, -4)
        p.fillRect(r, QColor(250, 250, 250))
        p.setPen(QPen(QColor(180, 180, 180), 1, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()))
        n = max(len(self.values) - 1, 1)
        step = r.width() / max(n, _core.MAX_GAME_PLIES // 2)
        points = [
            QPointF(r.left() + i * step, r.bottom() - v * r.height())
            for i, v in enumerate(self.values)
            if v is not None
        ]
        p.setPen(QPen(QColor(30, 30, 30), 2))
        if len(points) > 1:
            p.drawPolyline(QPolygonF(points))
        for point in points:
            p.drawEllipse(point, 1.5, 1.5)
        p.setPen(QPen(QColor(220, 30, 30), 1))
        x = r.left() + self.current * step
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        p.setPen(QColor(90, 90, 90))
        p.drawText(r.adjusted(4, 0, 0, 0), Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft, self.text())
        p.end()


class AnalysisPanel(QWidget):
    pvHovered = Signal(list)  # moves of the hovered PV; [] when the pointer leaves
    analyzeToggled = Signal(bool)
    stopClicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        buttons = QHBoxLayout()
        self.analyze_button = QPushButton()
        self.analyze_button.setCheckable(True)
        self.analyze_button.toggled.connect(self.analyzeToggled)
        self.stop_button = QPushButton()
        self.stop_button.clicked.connect(self.stopClicked)
        buttons.addWidget(self.analyze_button)
        buttons.addWidget(self.stop_button)
        layout.addLayout(buttons)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.wdl_bar = WdlBar()
        layout.addWidget(self.wdl_bar)
        self.chart = HistoryChart()
        layout.addWidget(self.chart)
        self.table = QTableWidget(0, COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(COLUMNS - 1, QHeaderView.ResizeMode.Stretch)
        self.setMinimumWidth(380)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setMouseTracking(True)
        self.table.cellEntered.connect(self._hover)
        self.table.viewport().installEventFilter(self)
        layout.addWidget(self.table, 1)
        self.pvs: list[list[int]] = []
        self.shown: tuple[AnalysisResult | None, _core.Color | None, str] = (None, None, "")
        self.retranslate()

    def retranslate(self) -> None:
        """Sets every text in the current language (at start and on a LanguageChange)."""
        self.analyze_button.setText(self.tr("Analyze"))
        self.analyze_button.setToolTip(self.tr("Search the current position until stopped (A)"))
        self.stop_button.setText(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Stop the search now; the AI plays its best move so far (Esc)"))
        headers = (
            self.tr("move"),
            self.tr("visits"),
            self.tr("win %"),
            self.tr("score"),
            self.tr("prior %"),
            self.tr("PV", "principal variation: the line the search expects"),
        )
        self.table.setHorizontalHeaderLabels(headers)
        self.show_result(*self.shown)
        self.wdl_bar.update()
        self.chart.update()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def show_result(self, result: AnalysisResult | None, to_move: _core.Color | None = None, note: str = "") -> None:
        """Shows a search's result (None or no visits: `note`, else "no analysis"); `note` is
        text in the current language, appended to the summary."""
        self.shown = (result, to_move, note)
        if result is None or result.visits == 0:
            self.summary.setText(note or self.tr("no analysis"))
            self.wdl_bar.set_wdl(None)
            self.table.setRowCount(0)
            self.pvs = []
            return
        side = self.tr("Black") if to_move == _core.Color.BLACK else self.tr("White")
        # The bar shows the network's W/D/L at the root when known (the tree keeps win - loss only),
        # else the search's win/loss split.
        wdl = result.root_wdl or (result.winrate, 0.0, 1.0 - result.winrate)
        self.wdl_bar.set_wdl(wdl)
        rate = result.visits / result.seconds if result.seconds > 0 else 0.0
        self.summary.setText(
            self.tr("{side} to move: win rate {winrate}%, expected score {score} | {visits} visits ({rate}/s) {note}")
            .format(
                side=side,
                winrate=f"{100 * result.winrate:.1f}",
                score=f"{result.score:+.1f}",
                visits=result.visits,
                rate=f"{rate:,.0f}",
                note=note,
            )
            .strip()
        )
        moves = [m for m in result.moves if m["visits"] > 0][:10] or result.moves[:5]
        self.table.setRowCount(len(moves))
        self.pvs = []
        for row, m in enumerate(moves):
            pv = [int(s) for s in m["pv"]] or [int(m["move"])]
            self.pvs.append(pv)
            proven = m.get("proven")  # the exact result the search proved for the move, if any
            cells = (
                _core.square_to_text(m["move"]),
                str(m["visits"]),
                self._proven_word(proven) if proven is not None else f"{100 * m['winrate']:.1f}",
                f"{m['exact_score']:+.0f}" if proven is not None else f"{m['score']:+.1f}",
                f"{100 * m['prior']:.1f}",
                " ".join(_core.square_to_text(s) for s in pv),
            )
            played = m["move"] == result.chosen
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if proven is not None and col in (2, 3):
                    item.setToolTip(self.tr("proven by the search: the exact result and margin under best play"))
                if played:  # the AI's move (LCB, exact endgame) need not be the most visited
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                    item.setToolTip(self.tr("the move the AI plays from this search"))
                self.table.setItem(row, col, item)

    def _proven_word(self, value: int) -> str:
        """A proven move's exact result, for the side to move, in the win rate's column."""
        if value > 0:
            return self.tr("proven win")
        return self.tr("proven draw") if value == 0 else self.tr("proven loss")

    def _hover(self, row: int, column: int) -> None:
        if 0 <= row < len(self.pvs):
            self.pvHovered.emit(self.pvs[row])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Leave:
            self.pvHovered.emit([])
        return False
