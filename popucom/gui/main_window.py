"""The main window: a board, the game tree and move list, the analysis panel, and the AI.

The window owns the GameTree (the model) and wires the views to it. The AI runs in
worker threads (ai.SearchBridge); this thread only draws: analysis snapshots are
kept as they arrive and drawn by a timer at most `REDRAW_HZ` times a second.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QSpinBox,
    QSplitter,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from .. import _core
from ..search.analysis import AnalysisResult
from ..weights import newest_for_cpu
from .ai import BOTS, SearchBridge, make_opponent
from .analysis_panel import AnalysisPanel
from .board_view import BoardWidget
from .game_tree import GameTree, Node
from .records import load_game_records, load_sgf, save_sgf
from .tree_model import GameTreeModel

MODES = {
    "human-black": "You (Black) vs AI",
    "human-white": "You (White) vs AI",
    "human-human": "Human vs human",
    "ai-ai": "AI vs AI (watch)",
}
REDRAW_HZ = 10
OPEN_MODEL = "Open model file…"


class MainWindow(QMainWindow):
    def __init__(
        self,
        opponent: str,
        mode: str = "human-black",
        visits: int = 800,
        seconds: float | None = None,
        network_threads: int = 1,
        search_threads: int = 1,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Popucom Zero")
        self.network_threads, self.search_threads = network_threads, search_threads
        self.tree = GameTree()
        self.token = 0  # identifies the current request to the AI; stale signals are ignored
        self.thinking_for: Node | None = None  # the node the AI is choosing a move at
        self.analysing: Node | None = None  # the node under analysis (AI move or analysis mode)
        self.latest: AnalysisResult | None = None  # newest snapshot, drawn by the redraw timer
        self.last_message = ""
        self.bridge = SearchBridge(make_opponent(opponent, network_threads, search_threads))
        self.bridge.snapshot.connect(self._on_snapshot)
        self.bridge.moveChosen.connect(self._on_move_chosen)
        self.bridge.analysisDone.connect(self._on_analysis_done)
        self.bridge.failed.connect(self._on_failed)
        self.redraw_timer = QTimer(self)
        self.redraw_timer.setSingleShot(True)
        self.redraw_timer.timeout.connect(self._draw_latest)
        self._build(mode, visits, seconds)
        self.refresh()
        self.message(
            f"opponent: {self.bridge.opponent.description} | threads: search {search_threads} + "
            f"network {network_threads}"
        )

    # --- layout -----------------------------------------------------------------------
    def _build(self, mode: str, visits: int, seconds: float | None) -> None:
        self.board = BoardWidget()
        self.board.squareClicked.connect(self.on_square)
        self.info = QLabel()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.info)
        layout.addWidget(self.board, 1)
        self.setCentralWidget(central)

        self.panel = AnalysisPanel()
        self.panel.pvHovered.connect(self.board.set_preview)
        self.panel.analyzeToggled.connect(self.set_analysis)
        self.panel.stopClicked.connect(self.stop)
        dock = QDockWidget("Analysis", self)
        dock.setWidget(self.panel)
        dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)

        self.tree_model = GameTreeModel(self.tree)
        self.tree_view = QTreeView()
        self.tree_view.setHeaderHidden(True)
        self.tree_view.setModel(self.tree_model)
        self.tree_view.clicked.connect(self._on_tree_clicked)
        self.move_list = QListWidget()
        self.move_list.itemClicked.connect(lambda item: self.go_to(self._line[self.move_list.row(item)]))
        self.comment = QPlainTextEdit()
        self.comment.setPlaceholderText("comment on this move")
        self.comment.textChanged.connect(self._on_comment_changed)
        splitter = QSplitter(Qt.Orientation.Vertical)
        for w in (self.tree_view, self.move_list, self.comment):
            splitter.addWidget(w)
        dock = QDockWidget("Game", self)
        dock.setWidget(splitter)
        dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self._line: list[Node] = []

        bar = QToolBar("Play")
        self.addToolBar(bar)
        self.mode_box = QComboBox()
        for key, text in MODES.items():
            self.mode_box.addItem(text, key)
        self.mode_box.setCurrentIndex(list(MODES).index(mode))
        self.mode_box.currentIndexChanged.connect(self._on_mode_changed)
        bar.addWidget(self.mode_box)
        self.opponent_box = QComboBox()
        self.opponent_box.setToolTip("The AI: a model (searched) or a baseline bot")
        self._fill_opponents(self.bridge.opponent.spec)
        self.opponent_box.activated.connect(self._on_opponent_chosen)
        bar.addWidget(self.opponent_box)
        self.budget_unit = QComboBox()
        self.budget_unit.addItems(["visits", "seconds"])
        self.visits_box = QSpinBox()
        self.visits_box.setRange(1, 10_000_000)
        self.visits_box.setValue(visits)
        self.seconds_box = QDoubleSpinBox()
        self.seconds_box.setRange(0.05, 3600)
        self.seconds_box.setValue(seconds or 2.0)
        self.budget_unit.currentIndexChanged.connect(self._on_budget_unit)
        self.budget_unit.setCurrentIndex(1 if seconds else 0)
        self._on_budget_unit()
        bar.addWidget(QLabel(" per move: "))
        bar.addWidget(self.visits_box)
        bar.addWidget(self.seconds_box)
        bar.addWidget(self.budget_unit)
        bar.addWidget(QLabel("  AI vs AI delay ms: "))
        self.delay_box = QSpinBox()
        self.delay_box.setRange(0, 10_000)
        self.delay_box.setValue(300)
        self.delay_box.setToolTip("Pause between moves when two AIs play (the watching speed)")
        bar.addWidget(self.delay_box)
        self.ai_move_action = QAction("AI move", self, shortcut=QKeySequence("Ctrl+G"), triggered=self.ai_move_now)
        bar.addAction(self.ai_move_action)

        menu = self.menuBar().addMenu("&File")
        menu.addAction(QAction("&New game", self, shortcut=QKeySequence.StandardKey.New, triggered=self.new_game))
        menu.addAction(QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.open_dialog))
        menu.addAction(QAction("&Save…", self, shortcut=QKeySequence.StandardKey.Save, triggered=self.save_dialog))
        menu.addAction(QAction("Open &model…", self, triggered=self.open_model_dialog))
        menu.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        menu = self.menuBar().addMenu("&Go")
        for text, keys, slot in (
            ("Back", "Left", self.tree.back),
            ("Forward", "Right", self.tree.forward),
            ("Previous variation", "Up", lambda: self.tree.sibling(-1)),
            ("Next variation", "Down", lambda: self.tree.sibling(+1)),
            ("Start", "Home", self.tree.to_start),
            ("End", "End", self.tree.to_end),
        ):
            menu.addAction(QAction(text, self, shortcut=QKeySequence(keys), triggered=self._navigator(slot)))
        menu = self.menuBar().addMenu("&Edit")
        menu.addAction(
            QAction(
                "&Delete this variation",
                self,
                shortcut=QKeySequence("Ctrl+Delete"),
                triggered=lambda: self.delete_node(self.tree.current),
            )
        )
        menu.addAction(
            QAction(
                "&Promote to main line",
                self,
                shortcut=QKeySequence("Ctrl+P"),
                triggered=lambda: self.promote_node(self.tree.current),
            )
        )
        menu = self.menuBar().addMenu("&Analysis")
        menu.addAction(
            QAction("&Analyze", self, shortcut=QKeySequence("A"), triggered=lambda: self.panel.analyze_button.toggle())
        )
        menu.addAction(QAction("&Stop", self, shortcut=QKeySequence("Esc"), triggered=self.stop))
        self.threads_label = QLabel(f"threads: search {self.search_threads} + network {self.network_threads}")
        self.statusBar().addPermanentWidget(self.threads_label)

    def _fill_opponents(self, current: str) -> None:
        box = self.opponent_box
        box.clear()
        newest = newest_for_cpu()
        specs = ([str(newest)] if newest else []) + list(BOTS)
        if current not in specs:
            specs.insert(0, current)
        for spec in specs:
            box.addItem(Path(spec).name if Path(spec).suffix else spec, spec)
        box.addItem(OPEN_MODEL, OPEN_MODEL)
        box.setCurrentIndex(specs.index(current))

    # --- state shown ------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return self.mode_box.currentData()

    def budget(self) -> tuple[int | None, float | None]:
        if self.budget_unit.currentText() == "seconds":
            return None, self.seconds_box.value()
        return self.visits_box.value(), None

    def message(self, text: str) -> None:
        self.last_message = text
        self.statusBar().showMessage(text)

    def is_ai_turn(self, position: _core.Position | None = None) -> bool:
        position = position or self.tree.position
        black = position.to_move == _core.Color.BLACK
        return {"human-black": not black, "human-white": black, "human-human": False, "ai-ai": True}[self.mode]

    def refresh(self) -> None:
        """Redraws everything from the model (after a move, navigation, load)."""
        node = self.tree.current
        pos = node.position
        self.board.set_position(pos, node.move)
        self.board.set_heat(None)
        b_left, w_left = pos.moves_left
        turn = (
            "game over: " + self._result_text(pos)
            if pos.is_over
            else f"{'Black' if pos.to_move == _core.Color.BLACK else 'White'} to move"
        )
        self.info.setText(
            f"Black ● {b_left} left, {bin(pos.floors(_core.Color.BLACK)).count('1')} floors   |   "
            f"White ○ {w_left} left, {bin(pos.floors(_core.Color.WHITE)).count('1')} floors   |   "
            f"komi {pos.komi}   |   {turn}"
        )
        self.tree_model.refresh()
        self.tree_view.expandAll()
        self.tree_view.setCurrentIndex(self.tree_model.index_of(node))
        self._line = self.tree.current_line()
        self.move_list.blockSignals(True)
        self.move_list.clear()
        self.move_list.addItems([n.label() + ("  ✎" if n.comment else "") for n in self._line])
        self.move_list.setCurrentRow(self._line.index(node))
        self.move_list.blockSignals(False)
        self.comment.blockSignals(True)
        self.comment.setPlainText(node.comment)
        self.comment.blockSignals(False)
        self._show_node_analysis(node)

    def _show_node_analysis(self, node: Node) -> None:
        history = [n.analysis["black_winrate"] if n.analysis else None for n in self._line]
        self.panel.chart.set_history(history, self._line.index(node))
        if self.analysing is not node:
            note = ""
            if node.analysis:
                a = node.analysis
                note = (
                    f"stored analysis: Black win rate {100 * a['black_winrate']:.1f}%, "
                    f"score {a['black_score']:+.1f} ({int(a['visits'])} visits)"
                )
            self.panel.show_result(None, note=note)

    @staticmethod
    def _result_text(pos: _core.Position) -> str:
        margin = pos.score + pos.komi
        how = "no legal move" if pos.end_reason == _core.EndReason.NO_LEGAL_MOVE else f"floors {margin:+d}"
        return {
            _core.Result.BLACK_WIN: "Black wins",
            _core.Result.WHITE_WIN: "White wins",
            _core.Result.DRAW: "draw",
        }.get(pos.result, "?") + f" ({how})"

    # --- playing ----------------------------------------------------------------------
    def on_square(self, square: int) -> None:
        pos = self.tree.position
        name = _core.square_to_text(square)
        if self.thinking_for is not None:
            self.message(f"The AI is thinking: wait, or press Stop to make it move now ({name} not played)")
        elif pos.is_over:
            self.message(f"The game is over ({self._result_text(pos)}); go back to try another move")
        elif self.is_ai_turn():
            self.message(
                f"It is the AI's turn in this mode: press 'AI move' (Ctrl+G) or change the mode ({name} not played)"
            )
        elif not pos.is_legal(square):
            self.message(f"{name} is illegal: {pos.illegal_reason(square)}")
        else:
            self.play(square)

    def play(self, move: int) -> None:
        self._cancel()
        node = self.tree.play(move)
        self.message(f"{node.label()}")
        self.refresh()
        self._after_move()

    def _after_move(self) -> None:
        pos = self.tree.position
        if pos.is_over:
            self.message(f"Game over: {self._result_text(pos)}")
            self.panel.analyze_button.setChecked(False)
        elif self.is_ai_turn():
            if self.mode == "ai-ai" and self.delay_box.value() > 0:
                token = self.token
                QTimer.singleShot(self.delay_box.value(), lambda: self._delayed_ai_move(token))
            else:
                self.ai_move_now()
        elif self.panel.analyze_button.isChecked():
            self._start_analysis()

    def _delayed_ai_move(self, token: int) -> None:
        if token == self.token and self.thinking_for is None and self.is_ai_turn():
            self.ai_move_now()

    def ai_move_now(self) -> None:
        """Lets the AI choose a move for the side to move at the current node."""
        if self.tree.position.is_over:
            self.message("The game is over")
            return
        self._cancel()
        self.token += 1
        self.thinking_for = self.analysing = self.tree.current
        visits, seconds = self.budget()
        self.bridge.think(self.tree.position, self.token, visits, seconds)
        budget = f"{visits} visits" if visits else f"{seconds:g} s"
        self.message(f"AI ({self.bridge.opponent.description}) is thinking: {budget}")

    def _on_move_chosen(self, move: int, result: AnalysisResult | None, token: int) -> None:
        if token != self.token or self.thinking_for is None:
            return  # a stale answer: the user moved on
        node = self.thinking_for
        self.thinking_for = self.analysing = None
        if result is not None:
            self._store(node, result)
        self.tree.go_to(node)
        self.tree.play(move)
        search = self.bridge.opponent.search
        if search is not None and search.position == node.position:
            search.play(move)  # keep the subtree: the reply then starts from what was searched
        self.refresh()
        detail = f" ({result.visits} visits, win rate {100 * result.winrate:.0f}%)" if result else ""
        self.message(f"AI played {_core.square_to_text(move)}{detail}")
        self._after_move()

    def _on_failed(self, error: str, token: int) -> None:
        if token != self.token:
            return
        self.thinking_for = self.analysing = None
        self.panel.analyze_button.setChecked(False)
        self.message(f"The AI failed: {error}")

    # --- analysis ---------------------------------------------------------------------
    def set_analysis(self, on: bool) -> None:
        if not on:
            if self.thinking_for is None:
                self._cancel()
            return
        if not self.bridge.opponent.is_model:
            self.message("Analysis needs a model: choose one as the opponent (or open a model file)")
            self.panel.analyze_button.setChecked(False)
            return
        if self.thinking_for is None:
            self._start_analysis()

    def _start_analysis(self) -> None:
        if self.tree.position.is_over:
            self.message("The game is over: nothing to analyse")
            return
        self._cancel()
        self.token += 1
        self.analysing = self.tree.current
        self.bridge.analyze(self.tree.position, self.token)

    def _on_snapshot(self, result: AnalysisResult, token: int) -> None:
        if token == self.token:
            self.latest = result
            if not self.redraw_timer.isActive():  # throttle: at most REDRAW_HZ redraws a second
                self.redraw_timer.start(1000 // REDRAW_HZ)

    def _on_analysis_done(self, result: AnalysisResult, token: int) -> None:
        if token == self.token:
            self.latest = result
            self._draw_latest()

    def _draw_latest(self) -> None:
        result, node = self.latest, self.analysing
        if result is None or node is None or node is not self.tree.current:
            return
        self._store(node, result)
        self.panel.show_result(result, node.position.to_move)
        visits = np.zeros(_core.NUM_SQUARES, np.float32)
        priors = np.zeros(_core.NUM_SQUARES, np.float32)
        for m in result.moves:
            visits[m["move"]], priors[m["move"]] = m["visits"], m["prior"]
        heat = visits / visits.sum() if visits.sum() > 0 else priors
        self.board.set_heat(heat)
        self._show_node_analysis(node)

    @staticmethod
    def _store(node: Node, result: AnalysisResult) -> None:
        if result.visits == 0:
            return
        black = node.position.to_move == _core.Color.BLACK
        node.analysis = {
            "visits": result.visits,
            "black_winrate": result.winrate if black else 1.0 - result.winrate,
            "black_score": result.score if black else -result.score,
        }

    def stop(self) -> None:
        """Stop: an AI thinking moves now with what it has; analysis ends."""
        if self.thinking_for is not None:
            self.bridge.stop()  # the final result comes back as moveChosen
            if not self.bridge.opponent.is_model:
                self.message("A bot's move cannot be interrupted; it is almost done")
        else:
            self.panel.analyze_button.setChecked(False)
            self._cancel()

    def _cancel(self) -> None:
        """Forgets any running request (its late signals are ignored) and stops the search."""
        self.token += 1
        self.thinking_for = self.analysing = None
        self.latest = None
        self.bridge.stop()

    # --- navigation and editing -------------------------------------------------------
    def _navigator(self, step):
        def go() -> None:
            self._cancel()
            step()
            self._navigated()

        return go

    def go_to(self, node: Node) -> None:
        self._cancel()
        self.tree.go_to(node)
        self._navigated()

    def _navigated(self) -> None:
        self.refresh()
        if self.panel.analyze_button.isChecked():
            self._start_analysis()

    def _on_tree_clicked(self, index: QModelIndex) -> None:
        node = self.tree_model.node(index)
        if node is not None and node is not self.tree.current:
            self.go_to(node)

    def delete_node(self, node: Node) -> None:
        try:
            self._cancel()
            self.tree.delete(node)
        except ValueError as e:
            self.message(str(e))
            return
        self._navigated()

    def promote_node(self, node: Node) -> None:
        self.tree.promote(node)
        self.refresh()
        self.message("The line through this move is now the main line")

    def _on_comment_changed(self) -> None:
        self.tree.current.comment = self.comment.toPlainText()

    def _on_mode_changed(self) -> None:
        self._cancel()
        self.message(f"Mode: {MODES[self.mode]}")
        if self.mode == "ai-ai" and not self.tree.position.is_over:
            self.ai_move_now()

    def _on_budget_unit(self) -> None:
        seconds = self.budget_unit.currentText() == "seconds"
        self.seconds_box.setVisible(seconds)
        self.visits_box.setVisible(not seconds)

    # --- opponents and files ----------------------------------------------------------
    def set_opponent(self, spec: str) -> bool:
        """Loads a model or bot as the AI; on failure keeps the current one and says why."""
        try:
            opponent = make_opponent(spec, self.network_threads, self.search_threads)
        except (ValueError, FileNotFoundError, RuntimeError) as e:
            self.message(f"Cannot use {spec} as the AI: {e}")
            self._fill_opponents(self.bridge.opponent.spec)
            return False
        self._cancel()
        self.bridge.set_opponent(opponent)
        self._fill_opponents(spec)
        self.message(f"AI: {opponent.description}")
        return True

    def _on_opponent_chosen(self, index: int) -> None:
        spec = self.opponent_box.itemData(index)
        if spec == OPEN_MODEL:
            self.open_model_dialog()
        elif spec != self.bridge.opponent.spec:
            self.set_opponent(spec)

    def open_model_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a model",
            "weights" if Path("weights").is_dir() else "",
            "Models (*.onnx *.pt *.pth *.plan *.engine);;All files (*)",
        )
        if path and not self.set_opponent(path):
            QMessageBox.warning(self, "Not a usable model", self.last_message)
        elif not path:
            self._fill_opponents(self.bridge.opponent.spec)

    def new_game(self) -> None:
        self._cancel()
        self.set_tree(GameTree())

    def set_tree(self, tree: GameTree) -> None:
        self._cancel()
        self.tree = tree
        self.tree_model.set_tree(tree)
        self.refresh()

    def open_path(
        self, path: str | Path, pick: Callable[[list[tuple[str, GameTree]]], GameTree | None] | None = None
    ) -> bool:
        """Opens an SGF file or a JSONL game-record file (the game `pick` chooses; default the
        first); on failure the game in progress is kept and the message says why."""
        path = Path(path)
        try:
            if path.suffix.lower() in (".jsonl", ".json"):
                games = load_game_records(path)
                tree = pick(games) if pick is not None and len(games) > 1 else games[0][1]
                if tree is None:
                    self.message("Open cancelled: the game in progress is kept")
                    return False
            else:
                tree = load_sgf(path)
        except (ValueError, json.JSONDecodeError) as e:
            self.message(f"Cannot open {path.name}: {e}")
            return False
        self.set_tree(tree)
        self.message(f"Opened {path.name}")
        return True

    def _pick_game(self, games: list[tuple[str, GameTree]]) -> GameTree | None:
        titles = [title for title, _ in games]
        title, ok = QInputDialog.getItem(self, "Choose a game", f"{len(games)} games in the file:", titles, 0, False)
        return games[titles.index(title)][1] if ok else None

    def save_path(self, path: str | Path) -> bool:
        try:
            save_sgf(self.tree, path)
        except (ValueError, OSError) as e:
            self.message(f"Cannot save {path}: {e}")
            return False
        self.message(f"Saved {Path(path).name}")
        return True

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a game", "", "Games (*.sgf *.jsonl);;SGF (*.sgf);;Game records (*.jsonl)"
        )
        if path and not self.open_path(path, pick=self._pick_game) and self.last_message.startswith("Cannot"):
            QMessageBox.warning(self, "Cannot open", self.last_message)

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the game", "game.sgf", "SGF (*.sgf)")
        if path and not self.save_path(path):
            QMessageBox.warning(self, "Cannot save", self.last_message)

    # --- closing ----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        """Mid-search too: the search stops within one network batch and its thread is joined."""
        self.redraw_timer.stop()
        self._cancel()
        self.bridge.shutdown()
        event.accept()
