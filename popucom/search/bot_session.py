"""A network-free bot's session: the same calls as a model's GameSearch, so that a front end
follows a game and asks for moves the same way whoever plays. A bot keeps no tree: it follows
the game's position and picks its move there (random, greedy, UCT rollouts), in the caller's
thread (search) or in one of its own (start); it has nothing to analyze, which `analyzes` says
and start() without a budget (an analysis) refuses. A bot's move cannot be interrupted: stop()
returns at once and the move comes when the bot has it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .. import _core
from .analysis import AnalysisResult

BOT_ANALYSIS = "analysis needs a model player (.onnx or .pt), not a bot"


class BotSession:
    analyzes = False  # GameSearch's is True: it streams what its search sees

    def __init__(self, bot: _core.Bot) -> None:
        self.bot = bot
        self.position = _core.Position()
        self._thread: threading.Thread | None = None

    @property
    def visits(self) -> int:
        return 0

    def set_position(self, position: _core.Position) -> None:
        self.position = position

    def follow(self, before: _core.Position, move: int) -> None:
        self.position = before.play(move)

    def play(self, move: int) -> None:
        self.position = self.position.play(move)

    def clear(self) -> None:
        """Nothing to forget."""

    def stop(self) -> None:
        """Nothing runs in the background."""

    def interrupt(self) -> None:
        """Nothing runs in the background."""

    def search(
        self,
        visits: int | None = None,
        seconds: float | None = None,
        callback: Callable[[AnalysisResult], object] | None = None,
        report_every_s: float = 0.1,
        stop: threading.Event | None = None,
    ) -> AnalysisResult:
        """The bot's move at the current position, as a search result with no statistics."""
        if self.position.is_over:
            raise ValueError("the game is over: there is nothing to search")
        started = time.perf_counter()
        move = self.bot.select_move(self.position)
        result = AnalysisResult(
            visits=0, winrate=0.5, value=0.0, score=0.0, seconds=time.perf_counter() - started, chosen=move
        )
        if callback is not None:
            callback(result)
        return result

    def move_to_play(self, result: AnalysisResult, temperature: float = 0.0) -> int:
        if result.chosen is None:
            raise ValueError("the bot chose no move")
        return result.chosen

    def start(
        self,
        visits: int | None = None,
        seconds: float | None = None,
        callback: Callable[[AnalysisResult], object] | None = None,
        on_done: Callable[[AnalysisResult], object] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        report_every_s: float = 0.1,
    ) -> None:
        """The bot's move in a thread of its own (GameSearch.start's calls): on_done gets it,
        on_error any exception. Without a budget it would be an analysis, which a bot has not."""
        if visits is None and seconds is None:
            raise ValueError(BOT_ANALYSIS)
        if self.position.is_over:
            raise ValueError("the game is over: there is nothing to search")

        def run() -> None:
            try:
                result = self.search(visits, seconds)  # no snapshots: a bot streams nothing
            except Exception as e:  # noqa: BLE001 - handed to on_error, never lost
                if on_error is not None:
                    on_error(e)
                return
            if on_done is not None:
                on_done(result)

        self._thread = threading.Thread(target=run, name="popucom-bot", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
