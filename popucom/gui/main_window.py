"""The main window: a board, the game tree and move list, the analysis panel, and the AI.

The window lays out and draws; the game and the AI's turns are its GameController's
(game_controller.py: the tree, the tokens, the session told every move), whose signals it
redraws on. The AI runs in worker threads (ai.SearchBridge); this thread only draws: analysis
snapshots are kept as they arrive and drawn by a timer at most `REDRAW_HZ` times a second.

Every user-visible text goes through tr() (language.py); `retranslate` sets the fixed texts
and runs again on a LanguageChange, so View > Language switches the language at run time.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QModelIndex, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
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
from ..levels import LEVELS, Level, level_named
from ..weights import newest_for_cpu
from . import language
from .ai import BOTS, SearchBridge, bot_title, make_opponent
from .analysis_panel import AnalysisPanel
from .board_view import BoardWidget
from .difficulty import level_description, level_title, menu_text
from .game_controller import GameController, store
from .game_tree import GameTree, Node
from .modes import MODE_KEYS
from .records import load_game_records, load_sgf, save_sgf
from .tree_model import GameTreeModel, node_text

# The modes (modes.py) by their names, translated where shown.
MODE_NAMES = (
    QT_TRANSLATE_NOOP("MainWindow", "You (Black) vs AI"),
    QT_TRANSLATE_NOOP("MainWindow", "You (White) vs AI"),
    QT_TRANSLATE_NOOP("MainWindow", "Human vs human"),
    QT_TRANSLATE_NOOP("MainWindow", "AI vs AI (watch)"),
)
MODES = {key: str(name) for key, name in zip(MODE_KEYS, MODE_NAMES, strict=True)}
REDRAW_HZ = 10
OPEN_MODEL = "<open model file>"  # the opponent list's last entry (its data, not a spec)
LEVEL_ENTRY = "<difficulty level>"  # the opponent list's entry for the level playing


class MainWindow(QMainWindow):
    def __init__(
        self,
        opponent: str,
        mode: str = "human-black",
        visits: int = 800,
        seconds: float | None = None,
        network_threads: int = 1,
        search_threads: int = 1,
        settings: QSettings | None = None,
    ) -> None:
        """`settings`, if given, stores the View > Language choice for the next start."""
        super().__init__()
        self.settings = settings
        self.network_threads, self.search_threads = network_threads, search_threads
        self.last_message = ""
        self._budget_before_level: tuple[int, int] | None = None  # (unit, visits) before a level set its own
        self.level_actions: dict[str, QAction] = {}  # the Difficulty menu's, by level name
        self.game = GameController(make_opponent(opponent, network_threads, search_threads), mode)
        self.game.changed.connect(self._on_game_changed)
        self.game.said.connect(self.message)
        self.game.analysisArrived.connect(self._on_analysis_arrived)
        self.game.analysisEnded.connect(lambda: self.panel.analyze_button.setChecked(False))
        self.redraw_timer = QTimer(self)
        self.redraw_timer.setSingleShot(True)
        self.redraw_timer.timeout.connect(self._draw_latest)
        self._build(mode, visits, seconds)
        self.retranslate()
        self.refresh()
        self.message(
            self.tr("opponent: {opponent} | {threads}").format(
                opponent=self.bridge.opponent.description, threads=self._threads_text()
            )
        )
        self.warn_missing_font()

    @property
    def tree(self) -> GameTree:
        return self.game.tree

    @property
    def bridge(self) -> SearchBridge:
        return self.game.bridge

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
        self.analysis_dock = QDockWidget(self)
        self.analysis_dock.setWidget(self.panel)
        self.analysis_dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.analysis_dock)

        self.tree_model = GameTreeModel(self.tree)
        self.tree_view = QTreeView()
        self.tree_view.setHeaderHidden(True)
        self.tree_view.setModel(self.tree_model)
        self.tree_view.clicked.connect(self._on_tree_clicked)
        self.move_list = QListWidget()
        self.move_list.itemClicked.connect(lambda item: self.go_to(self._line[self.move_list.row(item)]))
        self.comment = QPlainTextEdit()
        self.comment.textChanged.connect(self._on_comment_changed)
        splitter = QSplitter(Qt.Orientation.Vertical)
        for w in (self.tree_view, self.move_list, self.comment):
            splitter.addWidget(w)
        self.game_dock = QDockWidget(self)
        self.game_dock.setWidget(splitter)
        self.game_dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.game_dock)
        self._line: list[Node] = []

        self.play_bar = bar = QToolBar()
        self.addToolBar(bar)
        self.mode_box = QComboBox()
        for key in MODES:
            self.mode_box.addItem("", key)
        self.mode_box.setCurrentIndex(list(MODES).index(self.game.mode))
        self.mode_box.currentIndexChanged.connect(self._on_mode_changed)
        bar.addWidget(self.mode_box)
        self.opponent_box = QComboBox()
        self._fill_opponents(self.bridge.opponent.spec)
        self.opponent_box.activated.connect(self._on_opponent_chosen)
        bar.addWidget(self.opponent_box)
        self.budget_unit = QComboBox()
        self.budget_unit.addItems(["", ""])  # visits, seconds: named in retranslate
        self.visits_box = QSpinBox()
        self.visits_box.setRange(1, 10_000_000)
        self.visits_box.setValue(visits)
        self.seconds_box = QDoubleSpinBox()
        self.seconds_box.setRange(0.05, 3600)
        self.seconds_box.setValue(seconds or 2.0)
        self.budget_unit.currentIndexChanged.connect(self._on_budget_unit)
        self.budget_unit.setCurrentIndex(1 if seconds else 0)
        self._on_budget_unit()
        self.visits_box.valueChanged.connect(lambda _: self._on_budget_unit())
        self.seconds_box.valueChanged.connect(lambda _: self._on_budget_unit())
        self.per_move_label = QLabel()
        bar.addWidget(self.per_move_label)
        bar.addWidget(self.visits_box)
        bar.addWidget(self.seconds_box)
        bar.addWidget(self.budget_unit)
        self.delay_label = QLabel()
        bar.addWidget(self.delay_label)
        self.delay_box = QSpinBox()
        self.delay_box.setRange(0, 10_000)
        self.delay_box.setValue(self.game.delay_ms)
        self.delay_box.valueChanged.connect(lambda ms: setattr(self.game, "delay_ms", ms))
        bar.addWidget(self.delay_box)
        self.ai_move_action = QAction(self)
        self.ai_move_action.setShortcut(QKeySequence("Ctrl+G"))
        self.ai_move_action.triggered.connect(self.ai_move_now)
        bar.addAction(self.ai_move_action)

        # Menus and actions are made here and named in retranslate.
        def action(menu, shortcut=None, **kwargs) -> QAction:
            act = QAction(self, **kwargs)
            if shortcut is not None:
                act.setShortcut(QKeySequence(shortcut))
            menu.addAction(act)
            return act

        self.file_menu = menu = self.menuBar().addMenu("")
        self.new_action = action(menu, QKeySequence.StandardKey.New, triggered=self.new_game)
        self.open_action = action(menu, QKeySequence.StandardKey.Open, triggered=self.open_dialog)
        self.save_action = action(menu, QKeySequence.StandardKey.Save, triggered=self.save_dialog)
        self.open_model_action = action(menu, triggered=self.open_model_dialog)
        self.quit_action = action(menu, QKeySequence.StandardKey.Quit, triggered=self.close)
        self.difficulty_menu = menu = self.menuBar().addMenu("")
        for level in LEVELS:  # weakest first; named in retranslate
            act = action(menu, checkable=True)
            act.triggered.connect(lambda _=False, name=level.name: self.choose_level(name))
            self.level_actions[level.name] = act
        self.go_menu = menu = self.menuBar().addMenu("")
        self.go_actions = [
            action(menu, keys, triggered=self._navigator(slot))
            for keys, slot in (
                ("Left", lambda: self.tree.back()),
                ("Right", lambda: self.tree.forward()),
                ("Up", lambda: self.tree.sibling(-1)),
                ("Down", lambda: self.tree.sibling(+1)),
                ("Home", lambda: self.tree.to_start()),
                ("End", lambda: self.tree.to_end()),
            )
        ]
        self.edit_menu = menu = self.menuBar().addMenu("")
        self.delete_action = action(menu, "Ctrl+Delete", triggered=lambda: self.delete_node(self.tree.current))
        self.promote_action = action(menu, "Ctrl+P", triggered=lambda: self.promote_node(self.tree.current))
        self.analysis_menu = menu = self.menuBar().addMenu("")
        self.analyze_action = action(menu, "A", triggered=lambda: self.panel.analyze_button.toggle())
        self.stop_action = action(menu, "Esc", triggered=self.stop)
        self.view_menu = self.menuBar().addMenu("")
        self.language_menu = self.view_menu.addMenu("")
        group = QActionGroup(self)
        self.language_actions: dict[str, QAction] = {}
        for key, name in language.LANGUAGES.items():  # each named in its own language, never translated
            act = action(self.language_menu, text=name, checkable=True)
            act.setChecked(key == language.current_language())
            act.triggered.connect(lambda _=False, key=key: self.choose_language(key))
            group.addAction(act)
            self.language_actions[key] = act
        self.threads_label = QLabel()
        self.statusBar().addPermanentWidget(self.threads_label)

    def retranslate(self) -> None:
        """Sets every fixed text in the current language (at start and on a LanguageChange);
        texts that follow the game (the info line, the move list) are redrawn by refresh."""
        self.setWindowTitle(self.tr("Popucom Zero"))
        self.analysis_dock.setWindowTitle(self.tr("Analysis"))
        self.game_dock.setWindowTitle(self.tr("Game", "the dock holding the game tree, move list and comment"))
        self.comment.setPlaceholderText(self.tr("comment on this move"))
        self.play_bar.setWindowTitle(self.tr("Play"))
        for i, key in enumerate(MODES):
            self.mode_box.setItemText(i, QCoreApplication.translate("MainWindow", MODES[key]))
        self.opponent_box.setToolTip(self.tr("The AI: a model (searched) or a baseline bot"))
        self._fill_opponents(self.bridge.opponent.spec)
        self.budget_unit.setItemText(0, self.tr("visits"))
        self.budget_unit.setItemText(1, self.tr("seconds"))
        self.per_move_label.setText(self.tr(" per move: "))
        self.delay_label.setText(self.tr("  AI vs AI delay ms: "))
        self.delay_box.setToolTip(self.tr("Pause between moves when two AIs play (the watching speed)"))
        self.ai_move_action.setText(self.tr("AI move"))
        self.file_menu.setTitle(self.tr("&File"))
        self.new_action.setText(self.tr("&New game"))
        self.open_action.setText(self.tr("&Open…"))
        self.save_action.setText(self.tr("&Save…"))
        self.open_model_action.setText(self.tr("Open &model…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.difficulty_menu.setTitle(self.tr("&Difficulty"))
        for level in LEVELS:
            act = self.level_actions[level.name]
            act.setText(menu_text(level))
            act.setStatusTip(level_description(level))
            act.setToolTip(level_description(level))
        self.go_menu.setTitle(self.tr("&Go"))
        names = (
            self.tr("Back"),
            self.tr("Forward"),
            self.tr("Previous variation"),
            self.tr("Next variation"),
            self.tr("Start", "go to the start of the game"),
            self.tr("End", "go to the end of the line"),
        )
        for act, name in zip(self.go_actions, names):
            act.setText(name)
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.delete_action.setText(self.tr("&Delete this variation"))
        self.promote_action.setText(self.tr("&Promote to main line"))
        self.analysis_menu.setTitle(self.tr("&Analysis"))
        self.analyze_action.setText(self.tr("&Analyze"))
        self.stop_action.setText(self.tr("&Stop"))
        self.view_menu.setTitle(self.tr("&View"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.threads_label.setText(self._threads_text())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh()
        super().changeEvent(event)

    def choose_language(self, key: str) -> bool:
        """View > Language: switches now (every text is re-set) and stores the choice."""
        try:
            language.set_language(key)
        except language.LanguageError as e:
            self.message(str(e))
            self.language_actions[language.current_language()].setChecked(True)
            return False
        language.store_language(self.settings, key)
        self.language_actions[key].setChecked(True)
        self.warn_missing_font()
        return True

    def warn_missing_font(self) -> None:
        """Once a run per language: no installed font has its characters (Chinese without a CJK
        font shows boxes), said on stderr and in the status bar, with the package to install."""
        text = language.missing_font_warning()
        if text is not None:
            print(f"popucom gui: warning: {text}", file=sys.stderr)
            self.message(text)

    def _threads_text(self) -> str:
        return self.tr("threads: search {search} + network {network}").format(
            search=self.search_threads, network=self.network_threads
        )

    def _fill_opponents(self, current: str) -> None:
        """The opponent list, `current` selected; a level is listed by its name (its spec is a
        setting of its own, not the plain model of the list) and checked in the Difficulty menu."""
        box = self.opponent_box
        box.clear()
        level = self.bridge.opponent.level
        try:
            newest = newest_for_cpu()
        except ValueError:  # no version is `best` there (default_opponent said why at the start)
            newest = None
        specs = ([str(newest)] if newest else []) + list(BOTS)
        if level is not None or current not in specs:
            specs.insert(0, current)
        for i, spec in enumerate(specs):
            if level is not None and i == 0:
                box.addItem(self.tr("{level} level").format(level=level_title(level)), LEVEL_ENTRY)
            else:
                box.addItem(Path(spec).name if Path(spec).suffix else bot_title(spec), spec)
        box.addItem(self.tr("Open model file…"), OPEN_MODEL)
        box.setCurrentIndex(0 if level is not None else specs.index(current))
        for name, act in self.level_actions.items():
            act.setChecked(level is not None and level.name == name)

    # --- state shown ------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return self.mode_box.currentData()

    def budget(self) -> tuple[int | None, float | None]:
        if self.budget_unit.currentIndex() == 1:  # seconds
            return None, self.seconds_box.value()
        return self.visits_box.value(), None

    def message(self, text: str) -> None:
        self.last_message = text
        self.statusBar().showMessage(text)

    def refresh(self) -> None:
        """Redraws everything from the model (after a move, navigation, load)."""
        node = self.tree.current
        pos = node.position
        self.board.set_position(pos, node.move)
        self.board.set_heat(None)
        b_left, w_left = pos.moves_left
        if pos.is_over:
            turn = self.tr("game over: {result}").format(result=self.game.result_text(pos))
        elif pos.to_move == _core.Color.BLACK:
            turn = self.tr("Black to move")
        else:
            turn = self.tr("White to move")
        self.info.setText(
            self.tr(
                "Black ● {black_left} left, {black_floors} floors   |   "
                "White ○ {white_left} left, {white_floors} floors   |   komi {komi}   |   {turn}"
            ).format(
                black_left=b_left,
                black_floors=bin(pos.floors(_core.Color.BLACK)).count("1"),
                white_left=w_left,
                white_floors=bin(pos.floors(_core.Color.WHITE)).count("1"),
                komi=pos.komi,
                turn=turn,
            )
        )
        self.tree_model.refresh()
        self.tree_view.expandAll()
        self.tree_view.setCurrentIndex(self.tree_model.index_of(node))
        self._line = self.tree.current_line()
        self.move_list.blockSignals(True)
        self.move_list.clear()
        self.move_list.addItems([node_text(n) + ("  ✎" if n.comment else "") for n in self._line])
        self.move_list.setCurrentRow(self._line.index(node))
        self.move_list.blockSignals(False)
        self.comment.blockSignals(True)
        self.comment.setPlainText(node.comment)
        self.comment.blockSignals(False)
        self._show_node_analysis(node)

    def _show_node_analysis(self, node: Node) -> None:
        history = [n.analysis["black_winrate"] if n.analysis else None for n in self._line]
        self.panel.chart.set_history(history, self._line.index(node))
        if self.game.analysing is not node:
            note = ""
            if node.analysis:
                a = node.analysis
                note = self.tr("stored analysis: Black win rate {winrate}%, score {score} ({visits} visits)").format(
                    winrate=f"{100 * a['black_winrate']:.1f}", score=f"{a['black_score']:+.1f}", visits=int(a["visits"])
                )
            self.panel.show_result(None, note=note)

    # --- playing and analysis: the controller's, drawn here ------------------------------
    def _on_game_changed(self) -> None:
        if self.tree_model.tree is not self.game.tree:  # a new game or an opened one
            self.tree_model.set_tree(self.game.tree)
        self.refresh()

    def on_square(self, square: int) -> None:
        self.game.click(square)

    def ai_move_now(self) -> None:
        self.game.ai_move_now()

    def set_analysis(self, on: bool) -> None:
        if not self.game.set_analysis(on):
            self.panel.analyze_button.setChecked(False)

    def stop(self) -> None:
        self.game.stop()

    def _on_analysis_arrived(self, final: bool) -> None:
        if final:
            self._draw_latest()
        elif not self.redraw_timer.isActive():  # throttle: at most REDRAW_HZ redraws a second
            self.redraw_timer.start(1000 // REDRAW_HZ)

    def _draw_latest(self) -> None:
        result, node = self.game.latest, self.game.analysing
        if result is None or node is None or node is not self.tree.current:
            return
        store(node, result)
        self.panel.show_result(result, node.position.to_move)
        visits = np.zeros(_core.NUM_SQUARES, np.float32)
        priors = np.zeros(_core.NUM_SQUARES, np.float32)
        for m in result.moves:
            visits[m["move"]], priors[m["move"]] = m["visits"], m["prior"]
        heat = visits / visits.sum() if visits.sum() > 0 else priors
        self.board.set_heat(heat)
        self._show_node_analysis(node)

    # --- navigation and editing -------------------------------------------------------
    def _navigator(self, step):
        def go() -> None:
            self.game.cancel()
            step()
            self.game.navigated()

        return go

    def go_to(self, node: Node) -> None:
        self.game.go_to(node)

    def _on_tree_clicked(self, index: QModelIndex) -> None:
        node = self.tree_model.node(index)
        if node is not None and node is not self.tree.current:
            self.go_to(node)

    def delete_node(self, node: Node) -> None:
        self.game.delete_node(node)

    def promote_node(self, node: Node) -> None:
        self.game.promote_node(node)

    def _on_comment_changed(self) -> None:
        self.tree.current.comment = self.comment.toPlainText()

    def _on_mode_changed(self) -> None:
        self.message(self.tr("Mode: {mode}").format(mode=QCoreApplication.translate("MainWindow", MODES[self.mode])))
        self.game.set_mode(self.mode)

    def _on_budget_unit(self) -> None:
        seconds = self.budget_unit.currentIndex() == 1
        self.seconds_box.setVisible(seconds)
        self.visits_box.setVisible(not seconds)
        self.game.visits, self.game.seconds = self.budget()

    # --- opponents and files ----------------------------------------------------------
    def set_opponent(self, spec: str, level: Level | None = None) -> bool:
        """Loads a model or bot, or a difficulty `level` (then `spec` is its spec), as the AI; on
        failure keeps the current one and says why."""
        try:
            opponent = make_opponent(spec, self.network_threads, self.search_threads, level=level)
        except (ValueError, FileNotFoundError, RuntimeError) as e:
            self.message(self.tr("Cannot use {spec} as the AI: {error}").format(spec=spec, error=e))
            self._fill_opponents(self.bridge.opponent.spec)
            return False
        was_level = self.bridge.opponent.level is not None
        self.game.set_opponent(opponent)
        if level is not None:
            # A level's rating holds at its own visits: the budget becomes them, and the one
            # set before is given back when the AI is no level again.
            if not was_level:
                self._budget_before_level = (self.budget_unit.currentIndex(), self.visits_box.value())
            self.budget_unit.setCurrentIndex(0)
            self.visits_box.setValue(level.player_spec().visits)
        elif was_level and self._budget_before_level is not None:
            unit, visits = self._budget_before_level
            self.budget_unit.setCurrentIndex(unit)
            self.visits_box.setValue(visits)
            self._budget_before_level = None
        self._fill_opponents(opponent.spec)
        self.message(self.tr("AI: {opponent}").format(opponent=opponent.description))
        return True

    def choose_level(self, name: str) -> bool:
        """Difficulty > a level: that level becomes the AI, at its own visits."""
        level = level_named(name)
        return self.set_opponent(level.spec, level=level)

    def _on_opponent_chosen(self, index: int) -> None:
        spec = self.opponent_box.itemData(index)
        if spec == OPEN_MODEL:
            self.open_model_dialog()
        elif spec != LEVEL_ENTRY and (spec != self.bridge.opponent.spec or self.bridge.opponent.level is not None):
            self.set_opponent(spec)

    def open_model_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Open a model"),
            "weights" if Path("weights").is_dir() else "",
            self.tr("Models (*.onnx *.pt *.pth *.plan *.engine *.pcnet);;All files (*)"),
        )
        if path and not self.set_opponent(path):
            QMessageBox.warning(self, self.tr("Not a usable model"), self.last_message)
        elif not path:
            self._fill_opponents(self.bridge.opponent.spec)

    def new_game(self) -> None:
        self.game.new_game()

    def set_tree(self, tree: GameTree) -> None:
        self.game.set_tree(tree)

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
                    self.message(self.tr("Open cancelled: the game in progress is kept"))
                    return False
            else:
                tree = load_sgf(path)
        except (ValueError, json.JSONDecodeError) as e:
            self.message(self.tr("Cannot open {name}: {error}").format(name=path.name, error=e))
            return False
        self.set_tree(tree)
        self.message(self.tr("Opened {name}").format(name=path.name))
        return True

    def _pick_game(self, games: list[tuple[str, GameTree]]) -> GameTree | None:
        titles = []
        for number, (_, tree) in enumerate(games, 1):
            info = tree.properties
            titles.append(
                self.tr("{number}: {black} vs {white}, {result}, {moves} moves").format(
                    number=number,
                    black=info.get("PB") or "?",
                    white=info.get("PW") or "?",
                    result=info.get("RE", ""),
                    moves=len(tree.main_line()) - 1,
                )
            )
        title, ok = QInputDialog.getItem(
            self,
            self.tr("Choose a game"),
            self.tr("{count} games in the file:").format(count=len(games)),
            titles,
            0,
            False,
        )
        return games[titles.index(title)][1] if ok else None

    def save_path(self, path: str | Path) -> bool:
        try:
            save_sgf(self.tree, path)
        except (ValueError, OSError) as e:
            self.message(self.tr("Cannot save {path}: {error}").format(path=path, error=e))
            return False
        self.message(self.tr("Saved {name}").format(name=Path(path).name))
        return True

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Open a game"),
            "",
            self.tr("Games (*.sgf *.jsonl);;SGF (*.sgf);;Game records (*.jsonl)"),
        )
        if not path:
            return
        cancelled = []

        def pick(games: list[tuple[str, GameTree]]) -> GameTree | None:
            tree = self._pick_game(games)
            cancelled.append(tree is None)
            return tree

        if not self.open_path(path, pick=pick) and not any(cancelled):
            QMessageBox.warning(self, self.tr("Cannot open"), self.last_message)

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the game"), "game.sgf", "SGF (*.sgf)")
        if path and not self.save_path(path):
            QMessageBox.warning(self, self.tr("Cannot save"), self.last_message)

    # --- closing ----------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        """Mid-search too: the search stops within one network batch and its thread is joined."""
        self.redraw_timer.stop()
        self.game.shutdown()
        event.accept()
