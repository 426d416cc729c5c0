"""The game the window shows and the AI that plays in it: the game tree, whose turn it is, the
requests to the AI (each with a token, so that a late answer never lands on the wrong node),
its session told every move played, and the analysis kept on the nodes. No widget here: the
window (main_window.py) lays out and draws, sets the player's choices (mode, budget, the AI vs
AI delay, analysis on or off) on the controller, and redraws on its signals.

Every user-visible text goes through tr() (language.py), as in the window.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from .. import _core
from ..search.analysis import AnalysisResult
from .ai import Opponent, SearchBridge
from .game_tree import GameTree, Node
from .modes import MODE_KEYS
from .tree_model import node_text


class GameController(QObject):
    changed = Signal()  # the tree or its current node changed: redraw everything
    said = Signal(str)  # a status message
    analysisArrived = Signal(bool)  # `latest` holds a newer snapshot of `analysing`; True: the search's last
    analysisEnded = Signal()  # analysis stopped by itself (game over, the AI failed): uncheck it

    def __init__(self, opponent: Opponent, mode: str = "human-black") -> None:
        super().__init__()
        if mode not in MODE_KEYS:
            raise ValueError(f"unknown mode '{mode}' (choose {', '.join(MODE_KEYS)})")
        self.tree = GameTree()
        self.mode = mode
        self.visits: int | None = 800  # the AI's budget a move: visits, or else seconds
        self.seconds: float | None = None
        self.delay_ms = 300  # between moves when two AIs play
        self.analysis_on = False
        self.token = 0  # identifies the current request to the AI; stale signals are ignored
        self.thinking_for: Node | None = None  # the node the AI is choosing a move at
        self.analysing: Node | None = None  # the node under analysis (AI move or analysis mode)
        self.latest: AnalysisResult | None = None  # newest snapshot of `analysing`
        self.bridge = SearchBridge(opponent)
        self.bridge.snapshot.connect(self._on_snapshot)
        self.bridge.moveChosen.connect(self._on_move_chosen)
        self.bridge.analysisDone.connect(self._on_analysis_done)
        self.bridge.failed.connect(self._on_failed)

    # --- turns ------------------------------------------------------------------------
    def is_ai_turn(self, position: _core.Position | None = None) -> bool:
        position = position or self.tree.position
        black = position.to_move == _core.Color.BLACK
        return {"human-black": not black, "human-white": black, "human-human": False, "ai-ai": True}[self.mode]

    def result_text(self, pos: _core.Position) -> str:
        margin = pos.score + pos.komi
        if pos.end_reason == _core.EndReason.NO_LEGAL_MOVE:
            how = self.tr("no legal move")
        else:
            how = self.tr("floors {margin}").format(margin=f"{margin:+d}")
        winner = {
            _core.Result.BLACK_WIN: self.tr("Black wins"),
            _core.Result.WHITE_WIN: self.tr("White wins"),
            _core.Result.DRAW: self.tr("draw"),
        }.get(pos.result, "?")
        return self.tr("{winner} ({how})").format(winner=winner, how=how)

    def click(self, square: int) -> None:
        """A square clicked on the board: played where the player may play it, else said why not."""
        pos = self.tree.position
        name = _core.square_to_text(square)
        if self.thinking_for is not None:
            self.said.emit(
                self.tr("The AI is thinking: wait, or press Stop to make it move now ({square} not played)").format(
                    square=name
                )
            )
        elif pos.is_over:
            self.said.emit(
                self.tr("The game is over ({result}); go back to try another move").format(result=self.result_text(pos))
            )
        elif self.is_ai_turn():
            self.said.emit(
                self.tr(
                    "It is the AI's turn in this mode: press 'AI move' (Ctrl+G) or change the mode "
                    "({square} not played)"
                ).format(square=name)
            )
        elif not pos.is_legal(square):
            # The two reasons a square on the board of a game in progress is refused (docs/rules.md, A move).
            if pos.stone_at(square) is not None:
                why = self.tr("{square} is illegal: it already holds a stone")
            else:
                why = self.tr("{square} is illegal: it is painted in the opponent's colour")
            self.said.emit(why.format(square=name))
        else:
            self.play(square)

    def play(self, move: int) -> None:
        self.cancel()
        before = self.tree.position
        node = self.tree.play(move)
        self._tell_session(before, move)
        self.said.emit(node_text(node))
        self.changed.emit()
        self._after_move()

    def _tell_session(self, before: _core.Position, move: int) -> None:
        """Every move played on the board, either side's, reaches the AI's session: it keeps
        the subtree and the solver's table (a move from elsewhere in the game tree is a jump)."""
        self.bridge.opponent.search.follow(before, move)

    def _after_move(self) -> None:
        pos = self.tree.position
        if pos.is_over:
            self.said.emit(self.tr("Game over: {result}").format(result=self.result_text(pos)))
            self.analysisEnded.emit()
        elif self.is_ai_turn():
            if self.mode == "ai-ai" and self.delay_ms > 0:
                token = self.token
                QTimer.singleShot(self.delay_ms, lambda: self._delayed_ai_move(token))
            else:
                self.ai_move_now()
        elif self.analysis_on:
            self.start_analysis()

    def _delayed_ai_move(self, token: int) -> None:
        if token == self.token and self.thinking_for is None and self.is_ai_turn():
            self.ai_move_now()

    def ai_move_now(self) -> None:
        """Lets the AI choose a move for the side to move at the current node."""
        if self.tree.position.is_over:
            self.said.emit(self.tr("The game is over"))
            return
        self.cancel()
        self.token += 1
        self.thinking_for = self.analysing = self.tree.current
        visits, seconds = (self.visits, None) if self.visits else (None, self.seconds)
        self.bridge.think(self.tree.position, self.token, visits, seconds)
        if visits:
            budget = self.tr("{visits} visits").format(visits=visits)
        else:
            budget = self.tr("{seconds} s").format(seconds=f"{seconds:g}")
        self.said.emit(
            self.tr("AI ({opponent}) is thinking: {budget}").format(
                opponent=self.bridge.opponent.description, budget=budget
            )
        )

    def _on_move_chosen(self, move: int, result: AnalysisResult | None, token: int) -> None:
        if token != self.token or self.thinking_for is None:
            return  # a stale answer: the user moved on
        node = self.thinking_for
        self.thinking_for = self.analysing = None
        if result is not None:
            store(node, result)
        self.tree.go_to(node)
        self.tree.play(move)
        self._tell_session(node.position, move)
        self.changed.emit()
        if result is not None:
            text = self.tr("AI played {move} ({visits} visits, win rate {winrate}%)")
        else:
            text = self.tr("AI played {move}")
        self.said.emit(
            text.format(
                move=_core.square_to_text(move),
                visits=result.visits if result else 0,
                winrate=f"{100 * result.winrate:.0f}" if result else "",
            )
        )
        self._after_move()

    def _on_failed(self, error: str, token: int) -> None:
        if token != self.token:
            return
        self.thinking_for = self.analysing = None
        self.analysisEnded.emit()
        self.said.emit(self.tr("The AI failed: {error}").format(error=error))

    # --- analysis ---------------------------------------------------------------------
    def set_analysis(self, on: bool) -> bool:
        """Analysis on or off; False where it cannot be on (a bot plays: it has no analysis)."""
        if not on:
            self.analysis_on = False
            if self.thinking_for is None:
                self.cancel()
            return True
        if not self.bridge.opponent.analyzes:
            self.said.emit(self.tr("Analysis needs a model: choose one as the opponent (or open a model file)"))
            self.analysis_on = False
            return False
        self.analysis_on = True
        if self.thinking_for is None:
            self.start_analysis()
        return True

    def start_analysis(self) -> None:
        if self.tree.position.is_over:
            self.said.emit(self.tr("The game is over: nothing to analyse"))
            return
        self.cancel()
        self.token += 1
        self.analysing = self.tree.current
        self.bridge.analyze(self.tree.position, self.token)

    def _on_snapshot(self, result: AnalysisResult, token: int) -> None:
        if token == self.token:
            self.latest = result
            self.analysisArrived.emit(False)

    def _on_analysis_done(self, result: AnalysisResult, token: int) -> None:
        if token == self.token:
            self.latest = result
            self.analysisArrived.emit(True)

    def stop(self) -> None:
        """Stop: an AI thinking moves now with what it has; analysis ends."""
        if self.thinking_for is not None:
            self.bridge.stop()  # the final result comes back as moveChosen
            if not self.bridge.opponent.analyzes:
                self.said.emit(self.tr("A bot's move cannot be interrupted; it is almost done"))
        else:
            self.analysis_on = False
            self.analysisEnded.emit()
            self.cancel()

    def cancel(self) -> None:
        """Forgets any running request (its late signals are ignored) and stops the search."""
        self.token += 1
        self.thinking_for = self.analysing = None
        self.latest = None
        self.bridge.stop()

    # --- navigation, editing, games ---------------------------------------------------
    def navigated(self) -> None:
        """After a jump in the tree: redraw, and analyse the new node where analysis is on."""
        self.changed.emit()
        if self.analysis_on:
            self.start_analysis()

    def go_to(self, node: Node) -> None:
        self.cancel()
        self.tree.go_to(node)
        self.navigated()

    def delete_node(self, node: Node) -> None:
        if node.parent is None:  # GameTree.delete refuses it too, in English
            self.said.emit(self.tr("The start of the game cannot be deleted"))
            return
        self.cancel()
        self.tree.delete(node)
        self.navigated()

    def promote_node(self, node: Node) -> None:
        self.tree.promote(node)
        self.changed.emit()
        self.said.emit(self.tr("The line through this move is now the main line"))

    def set_mode(self, mode: str) -> None:
        """Another mode; the AI moves at once where it now has the turn in AI vs AI."""
        self.cancel()
        self.mode = mode
        if mode == "ai-ai" and not self.tree.position.is_over:
            self.ai_move_now()

    def set_opponent(self, opponent: Opponent) -> None:
        self.cancel()
        self.bridge.set_opponent(opponent)

    def new_game(self) -> None:
        self.cancel()
        self.bridge.forget()  # the old game's search tree, however big an analysis made it
        self.set_tree(GameTree())

    def set_tree(self, tree: GameTree) -> None:
        self.cancel()
        self.tree = tree
        self.changed.emit()

    def shutdown(self) -> None:
        """Mid-search too: the search stops within one network batch and its thread is joined."""
        self.cancel()
        self.bridge.shutdown()


def store(node: Node, result: AnalysisResult) -> None:
    """An analysis kept on its node, from Black's side (what a record and the chart show)."""
    if result.visits == 0:
        return
    black = node.position.to_move == _core.Color.BLACK
    node.analysis = {
        "visits": result.visits,
        "black_winrate": result.winrate if black else 1.0 - result.winrate,
        "black_score": result.score if black else -result.score,
    }
