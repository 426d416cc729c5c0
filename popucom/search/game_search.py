"""One game's search that keeps its tree: the model is KataGo's background search bot (asyncbot).

    gs = GameSearch(evaluator)
    gs.set_position(position)             # the same root, a child of it (tree kept), or a fresh tree
    result = gs.search(visits=800)        # in this thread, or:
    gs.start(visits=800, callback=show, on_done=play)   # in a worker thread; gs.stop() ends it early
    gs.play(result.best_move)             # whichever side played it: the subtree is kept
    gs.ponder()                           # think on the opponent's time until the next call

Budgets: `visits` is the root visit count at which the search stops, and visits
kept from earlier searches count (KataGo's maxVisits); `seconds` is wall time of
this call; either, both, or neither for a search that runs until `stop()`
(pondering; capped at `max_ponder_visits` so memory stays bounded).

Snapshots are `AnalysisResult`s: the first one right after the first batch
(so a view shows something at once), then every `report_every_s`, and a final
one when the search ends. The callback runs on the search thread: a GUI must
hand it to its own thread (a queued Qt signal does).

Thread safety: every public method may be called from any thread. The search
thread holds `_lock` while it steps (the C++ gather and backup release the GIL,
so other Python threads keep running); methods that move the root stop the
running search first, as KataGo's makeMove does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .. import _core
from ..infer.contract import Evaluator, check_outputs
from .analysis import AnalysisResult, snapshot
from .batched import BatchedSearch

Callback = Callable[[AnalysisResult], None]
UNLIMITED = 2**31 - 1
SINGLE_GAME_LEAVES_PER_STEP = 16  # one tree, so the batch is its own leaves (virtual loss spreads them)


class GameSearch:
    def __init__(
        self,
        evaluator: Evaluator,
        params: _core.SearchParams | None = None,
        cache_mb: float = 64.0,
        threads: int = 1,
        leaves_per_step: int | None = None,
        seed: int = 0,
        pv_length: int = 10,
        max_ponder_visits: int = 1_000_000,
    ) -> None:
        """threads: C++ tree-work threads (the network's threads are the evaluator's own budget).
        leaves_per_step: leaves per network call (SINGLE_GAME_LEAVES_PER_STEP if None): one
        game's search needs several per call to batch at all, so params.leaves_per_game is
        replaced by it."""
        params = params or _core.SearchParams()
        params.leaves_per_game = leaves_per_step or SINGLE_GAME_LEAVES_PER_STEP
        self.driver = BatchedSearch(
            evaluator, num_games=1, params=params, cache_mb=cache_mb, threads=threads, seed=seed
        )
        self.pv_length = pv_length
        self.max_ponder_visits = max_ponder_visits
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.driver.search.reset(0, _core.Position())
        self.resets = 0  # how many times the tree was thrown away (for tests and statistics)
        self.root_evaluations = True  # snapshots carry the network's root W/D/L (one extra call per search)
        self._root_wdl_cache: dict[int, tuple[float, float, float]] = {}

    # --- the root ----------------------------------------------------------------------
    @property
    def position(self) -> _core.Position:
        with self._lock:
            return self.driver.search.position(0)

    @property
    def visits(self) -> int:
        """Root visits of the current tree (kept visits included)."""
        with self._lock:
            return self.driver.search.visits(0)

    def play(self, move: _core.Move) -> None:
        """Moves the root by `move` (either side's), keeping its subtree."""
        self.stop()
        with self._lock:
            self.driver.search.play(0, move)

    def set_position(self, position: _core.Position) -> None:
        """Makes `position` the root: kept if it is the root, advanced into if it is one move
        below the root, otherwise a fresh tree (a jump elsewhere in a game tree)."""
        self.stop()
        with self._lock:
            search = self.driver.search
            root = search.position(0)
            if root == position:
                return
            if position.ply == root.ply + 1 and not root.is_over:
                for move in root.legal_moves():
                    if root.play(move) == position:
                        search.play(0, move)
                        return
            search.reset(0, position)
            self.resets += 1

    def clear(self) -> None:
        """Forgets the tree and the evaluation cache."""
        self.stop()
        with self._lock:
            self.driver.search.reset(0, self.driver.search.position(0))
            self.driver.cache.clear()
            self.resets += 1

    # --- searching ---------------------------------------------------------------------
    def result(self) -> AnalysisResult:
        """A snapshot of the tree as it stands."""
        with self._lock:
            return snapshot(self.driver.search, time.perf_counter(), self.pv_length)

    def search(
        self,
        visits: int | None = None,
        seconds: float | None = None,
        callback: Callback | None = None,
        report_every_s: float = 0.1,
    ) -> AnalysisResult:
        """Searches in the calling thread until a budget is met or stop() is called; returns the
        final snapshot (also passed to the callback)."""
        with self._lock:
            search = self.driver.search
            if search.position(0).is_over:
                raise ValueError("the game is over: there is nothing to search")
            target = (
                min(visits, UNLIMITED)
                if visits is not None
                else UNLIMITED
                if seconds is not None
                else self.max_ponder_visits
            )
            search.set_visit_target(0, target)
            started = time.perf_counter()
            root_wdl = self._root_wdl(search.position(0))
            last_report = None
            while not search.done(0) and not self._stop.is_set():
                if seconds is not None and time.perf_counter() - started >= seconds:
                    break
                self.driver.step()
                now = time.perf_counter()
                if callback is not None and (last_report is None or now - last_report >= report_every_s):
                    last_report = now
                    callback(self._snapshot(started, root_wdl))
            final = self._snapshot(started, root_wdl)
        if callback is not None:
            callback(final)
        return final

    def _snapshot(self, started: float, root_wdl: tuple[float, float, float] | None) -> AnalysisResult:
        result = snapshot(self.driver.search, started, self.pv_length)
        result.root_wdl = root_wdl
        return result

    def _root_wdl(self, position: _core.Position) -> tuple[float, float, float] | None:
        """The network's W/D/L for the root (one batch-1 call, once per search): the tree backs up
        win - loss only, so this is where a view gets the draw share."""
        if not self.root_evaluations:
            return None
        key = position.hash
        if key not in self._root_wdl_cache:
            out = check_outputs(self.driver.evaluator(_core.encode_position(position)[None]), 1)
            self._root_wdl_cache = {key: tuple(float(x) for x in out.wdl[0])}
        return self._root_wdl_cache[key]

    def start(
        self,
        visits: int | None = None,
        seconds: float | None = None,
        callback: Callback | None = None,
        on_done: Callback | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        report_every_s: float = 0.1,
    ) -> None:
        """Like search(), in a worker thread; on_done gets the final snapshot (also after stop()),
        on_error any exception (the evaluator failing), both on the worker thread."""
        self.stop()
        if self.position.is_over:
            raise ValueError("the game is over: there is nothing to search")
        self._stop.clear()

        def run() -> None:
            try:
                final = self.search(visits, seconds, callback, report_every_s)
            except BaseException as e:  # reported, not lost in a dead thread
                if on_error is None:
                    raise
                on_error(e)
                return
            if on_done is not None:
                on_done(final)

        self._thread = threading.Thread(target=run, name="popucom-game-search", daemon=True)
        self._thread.start()

    def ponder(self, callback: Callback | None = None, report_every_s: float = 0.25) -> None:
        """Searches the current root in the background until stopped (or max_ponder_visits)."""
        self.start(callback=callback, report_every_s=report_every_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Ends a running search (background, or search() in another thread) and waits for it:
        at most one network batch."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._lock:  # taken once no search is stepping
            self._stop.clear()
            if self._thread is thread:
                self._thread = None

    def wait(self, timeout: float | None = None) -> bool:
        """Waits for a background search to finish by itself; True when none is running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.running

    def choose_move(self, temperature: float = 0.0) -> int:
        with self._lock:
            return self.driver.search.choose_move(0, temperature)

    def move_to_play(self, result: AnalysisResult) -> int:
        """The move to play after a search that ended with `result`: the choice its snapshot
        already made (an endgame solve is not repeated), else, for a search that ended before
        its first visit, choose_move's."""
        return result.chosen if result.chosen is not None else self.choose_move()
