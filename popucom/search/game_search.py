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
(pondering, analysis; capped at `max_ponder_visits`); a time budget, however small, ends a
search only once its root has MIN_TIMED_VISITS (popucom.limits). Memory stays bounded: any search
ends once its tree holds `tree_mb` megabytes (TREE_BYTES_PER_NODE a node), and a fresh
tree (a new game, a jump) gives a big tree's memory back (SearchTree::reset). They are
checked when given: visits in [1, MAX_VISITS] (popucom.limits), seconds finite,
> 0 and at most a day; anything else is a ValueError before any search runs.

The exact solver's table lives with the session (endgame_table_mb): play() and follow() keep
it, so a move's endgame choice reuses what the solves of the earlier moves proved;
set_position() to anything but a child and clear() empty it.

Deadlines: the exact solves inside a search (leaf solves, the endgame choice of the move to
play) share one deadline with it, so a `seconds` budget holds even with the largest solver
budgets: the solves give up at the end of the budget, as when their node budgets run out.
When the root is within endgame_solve_plies (or endgame_try_plies) of the end, the tree search takes the first
ENDGAME_SEARCH_SHARE of the time and the endgame choice has the rest. stop() and interrupt()
end a solve in progress at once: a stopped search answers with what it has, and what it had
proven at that root is kept. After a timed or stopped search, choose_move() and result()
solve nothing more until the next search sets its own deadline.

Snapshots are `AnalysisResult`s: the first one right after the first batch
(so a view shows something at once), then every `report_every_s`, and a final
one when the search ends. The callback runs on the search thread: a GUI must
hand it to its own thread (a queued Qt signal does).

Thread safety: every public method may be called from any thread. A search
holds `_lock` for its whole run (the C++ gather and backup and the network call
release the GIL, so other Python threads keep running), so reads wait for a
running search. Methods that move the root (play, set_position, clear) and new
searches (search, start, ponder) end the running search first, as KataGo's
makeMove does: they take a ticket (`_generation`) that every earlier search
checks before each step, and searches yield while such a call waits for the tree
(`_waiting`). Callbacks run on the search thread and may call any method.

A process may exit while a search runs in the background: an exit handler
stops every search first (a thread still inside the core when the interpreter
shuts down would abort the process).
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .. import _core
from ..infer.contract import Evaluator, check_outputs
from ..limits import MAX_VISITS, MIN_TIMED_VISITS, check_seconds, check_visits
from .analysis import AnalysisResult, snapshot
from .batched import BatchedSearch

Callback = Callable[[AnalysisResult], None]
UNLIMITED = 2**31 - 1
SINGLE_GAME_LEAVES_PER_STEP = 16  # one tree, so the batch is its own leaves (virtual loss spreads them)
# A tree node's memory as a budget counts it: the node, its edges (one a legal move) and the
# slack of the arrays that hold them, rounded up so that tree_mb errs toward less memory.
TREE_BYTES_PER_NODE = 1024
DEFAULT_TREE_MB = 256.0  # about 260,000 nodes: minutes of analysis on a 2-core CPU
# The solver's table kept across a game's moves: room for the proofs of its last dozen plies,
# so a move's endgame choice finds what the previous ones proved.
DEFAULT_ENDGAME_TABLE_MB = 256.0
# Near the end a timed search leaves the rest of its time to the exact endgame choice, which
# decides the move there; the tree's visits only order the moves it proves.
ENDGAME_SEARCH_SHARE = 0.5

_live: weakref.WeakSet[GameSearch] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """Ends every background search before the interpreter shuts down: a daemon thread that
    comes back from the core (or from a network call) with the GIL released after that point
    is ended by the interpreter in the middle of C++ code, which aborts the process."""
    for search in list(_live):
        search.stop()


class GameSearch:
    analyzes = True  # it streams what its search sees (a bot's session does not: bot_session.py)

    def __init__(
        self,
        evaluator: Evaluator,
        params: _core.SearchParams | None = None,
        cache_mb: float = 64.0,
        threads: int = 1,
        leaves_per_step: int | None = None,
        seed: int = 0,
        pv_length: int = 10,
        max_ponder_visits: int = MAX_VISITS,
        tree_mb: float = DEFAULT_TREE_MB,
        endgame_table_mb: float = DEFAULT_ENDGAME_TABLE_MB,
    ) -> None:
        """threads: C++ tree-work threads (the network's threads are the evaluator's own budget).
        leaves_per_step: leaves per network call (SINGLE_GAME_LEAVES_PER_STEP if None): one
        game's search needs several per call to batch at all, so params.leaves_per_game is
        replaced by it. tree_mb: the tree's memory, at which any search ends (the evaluation
        cache's is cache_mb). endgame_table_mb: the exact solver's table, kept for the whole
        game (0: each move's endgame choice solves with a table of its own)."""
        if not (isinstance(tree_mb, (int, float)) and 0 < tree_mb < float("inf")):
            raise ValueError(f"tree_mb must be a positive number of megabytes, got {tree_mb!r}")
        params = params or _core.SearchParams()
        params.leaves_per_game = leaves_per_step or SINGLE_GAME_LEAVES_PER_STEP
        self.driver = BatchedSearch(
            evaluator, num_games=1, params=params, cache_mb=cache_mb, threads=threads, seed=seed
        )
        self.pv_length = pv_length
        self.max_ponder_visits = max_ponder_visits
        self.max_tree_nodes = max(1, int(tree_mb * 2**20 // TREE_BYTES_PER_NODE))
        self._lock = threading.RLock()  # the tree: held by a search for its whole run
        self._control = threading.Lock()  # the fields below; held only for a few lines, never while waiting
        self._generation = 0  # a search runs while this is the value it started with
        self._waiting = 0  # calls waiting for the tree: a running search yields to them
        self._threads: list[threading.Thread] = []  # background searches, started
        self._search_thread: threading.Thread | None = None  # the thread running a search, if any
        self.driver.search.keep_endgame_table(0, endgame_table_mb)  # ValueError out of range
        self.driver.search.reset(0, _core.Position())
        self.resets = 0  # how many times the tree was thrown away (for tests and statistics)
        self.root_evaluations = True  # snapshots carry the network's root W/D/L (one extra call per search)
        self._root_wdl_cache: dict[int, tuple[float, float, float]] = {}
        _live.add(self)

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
        with self._quiet_tree():
            self.driver.search.play(0, move)

    def follow(self, before: _core.Position, move: _core.Move) -> None:
        """Tells the session that `move` was played from `before` (by either side): the
        subtree is kept when `before` is the root, as KataGo's makeMove keeps it; from any
        other root the position after the move becomes the root (set_position)."""
        with self._quiet_tree():
            if self.driver.search.position(0) == before and not before.is_over:
                self.driver.search.play(0, move)
                return
        self.set_position(before.play(move))

    def set_position(self, position: _core.Position) -> None:
        """Makes `position` the root: kept if it is the root, advanced into if it is one move
        below the root, otherwise a fresh tree (a jump elsewhere in a game tree)."""
        with self._quiet_tree():
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
        with self._quiet_tree():
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
        stop: threading.Event | None = None,
    ) -> AnalysisResult:
        """Searches in the calling thread until a budget is met, stop() is called or `stop` is
        set (by any thread; set it, then call interrupt(), to end a solve in progress too);
        returns the final snapshot (also passed to the callback). A search running in another
        thread is ended first."""
        visits, seconds = self._budget(visits, seconds)
        with self._quiet_tree():
            generation = self._generation
        return self._search(generation, visits, seconds, callback, report_every_s, stop)

    @staticmethod
    def _budget(visits: int | None, seconds: float | None) -> tuple[int | None, float | None]:
        return check_visits(visits), check_seconds(seconds)

    def _search(
        self,
        generation: int,
        visits: int | None,
        seconds: float | None,
        callback: Callback | None,
        report_every_s: float,
        stop: threading.Event | None = None,
    ) -> AnalysisResult:
        """The search loop; it ends early once `generation` is no longer current or `stop` is
        set (one that was ended before it had the tree only reports the tree as it stands)."""
        with self._searching_tree():
            search = self.driver.search
            started = time.perf_counter()
            if not self._current(generation):
                search.expire_deadline()  # its snapshot solves nothing
                return self._ended_before_start(started, callback)
            search.set_deadline(seconds)  # the solves end with the budget; None: node budgets only
            if search.position(0).is_over:
                raise ValueError("the game is over: there is nothing to search")
            target = visits if visits is not None else UNLIMITED if seconds is not None else self.max_ponder_visits
            search.set_visit_target(0, target)
            tree_seconds = seconds
            if seconds is not None and self._endgame_choice_at_root():
                tree_seconds = seconds * ENDGAME_SEARCH_SHARE
            root_wdl = self._root_wdl(search.position(0))
            last_report = None

            def ended() -> bool:
                return not self._current(generation) or (stop is not None and stop.is_set())

            while not search.done(0) and not ended():
                if tree_seconds is not None and time.perf_counter() - started >= tree_seconds:
                    if search.visits(0) >= MIN_TIMED_VISITS:  # however small the budget: limits.py
                        break
                if search.num_nodes(0) >= self.max_tree_nodes:  # tree_mb: the memory stays put
                    break
                self.driver.step()
                now = time.perf_counter()
                if callback is not None and (last_report is None or now - last_report >= report_every_s):
                    last_report = now
                    callback(self._snapshot(started, root_wdl))
            if ended():  # the set() came after this search set its deadline: end its solves here
                search.expire_deadline()
            final = self._snapshot(started, root_wdl)
        if callback is not None:
            callback(final)
        return final

    def _ended_before_start(self, started: float, callback: Callback | None) -> AnalysisResult:
        final = self._snapshot(started, None)
        if callback is not None:
            callback(final)
        return final

    @contextmanager
    def _searching_tree(self) -> Iterator[None]:
        """Holds the tree for a search, noting the thread: its callbacks may call back in."""
        with self._lock:
            outer, self._search_thread = self._search_thread, threading.current_thread()
            try:
                yield
            finally:
                self._search_thread = outer

    def _endgame_choice_at_root(self) -> bool:
        """Whether the move to play is chosen, or tried, by the exact endgame solver
        (SearchParams: endgame_solve_plies, endgame_try_plies)."""
        return self.driver.search.solves_endgame_at_root(0)

    def _current(self, generation: int) -> bool:
        """Whether the search of `generation` may take another step."""
        return generation == self._generation and not self._waiting

    @contextmanager
    def _quiet_tree(self) -> Iterator[None]:
        """Holds the tree with no search running: every search started before is told to end
        (within one network batch), background ones are joined, and a search that wins the
        tree meanwhile yields at its next step."""
        with self._control:
            self._generation += 1
            self._waiting += 1
            threads = list(self._threads)
        self.driver.search.expire_deadline()  # a solve in progress ends now, not after its budget
        try:
            # A callback (on the search thread, holding the tree) joins nothing: the threads it
            # would join may be waiting for the tree it holds. Its own search ends after it.
            if threading.current_thread() is not self._search_thread:
                for thread in threads:
                    thread.join()
            self._lock.acquire()
        finally:
            with self._control:
                self._waiting -= 1
                self._threads = [t for t in self._threads if t.is_alive()]
        try:
            yield
        finally:
            self._lock.release()

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
        on_error any exception (the evaluator failing), both on the worker thread. A bad budget
        or a finished game raises here, before any thread starts."""
        visits, seconds = self._budget(visits, seconds)

        def run(generation: int) -> None:
            try:
                final = self._search(generation, visits, seconds, callback, report_every_s)
            except BaseException as e:  # reported, not lost in a dead thread
                if on_error is None:
                    raise
                on_error(e)
                return
            if on_done is not None:
                on_done(final)

        with self._quiet_tree():
            if self.driver.search.position(0).is_over:
                raise ValueError("the game is over: there is nothing to search")
            with self._control:
                # Started before it is listed, so whoever joins the listed threads can always
                # join; it waits for the tree until this call lets it go.
                thread = threading.Thread(target=run, args=(self._generation,), name="popucom-game-search", daemon=True)
                thread.start()
                self._threads.append(thread)

    def ponder(self, callback: Callback | None = None, report_every_s: float = 0.25) -> None:
        """Searches the current root in the background until stopped (or max_ponder_visits)."""
        self.start(callback=callback, report_every_s=report_every_s)

    @property
    def running(self) -> bool:
        with self._control:
            return any(t.is_alive() for t in self._threads)

    def stop(self) -> None:
        """Ends a running search (background, or search() in another thread) and waits for it:
        at most one network batch."""
        with self._quiet_tree():
            pass

    def interrupt(self) -> None:
        """Ends a running search without waiting for it, from any thread, even one that must
        not block (an input reader): the search ends within one network batch, its exact solves
        at once, and answers with what it has. A search started after this call is not
        affected: to stop one that may be about to start, pass it a `stop` event and set that
        first."""
        with self._control:
            self._generation += 1
        self.driver.search.expire_deadline()

    def wait(self, timeout: float | None = None) -> bool:
        """Waits for background searches to finish by themselves; True when none is running."""
        with self._control:
            threads = list(self._threads)
        deadline = None if timeout is None else time.perf_counter() + timeout
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(None if deadline is None else max(0.0, deadline - time.perf_counter()))
        return not self.running

    def choose_move(self, temperature: float = 0.0) -> int:
        with self._lock:
            return self.driver.search.choose_move(0, temperature)

    def move_to_play(self, result: AnalysisResult, temperature: float = 0.0) -> int:
        """The move to play after a search that ended with `result`: the choice its snapshot
        already made (an endgame solve is not repeated), else, for a search that ended before
        its first visit, choose_move's. At a temperature above 0, a move sampled from the
        tree's visit counts (choose_move(temperature))."""
        if temperature > 0:
            return self.choose_move(temperature)
        return result.chosen if result.chosen is not None else self.choose_move()


def analyze(
    position: _core.Position,
    evaluator: Evaluator,
    visits: int | None = 800,
    seconds: float | None = None,
    callback: Callable[[AnalysisResult], bool | None] | None = None,
    report_every_s: float = 0.2,
    stop: threading.Event | None = None,
    params: _core.SearchParams | None = None,
    leaves_per_step: int = SINGLE_GAME_LEAVES_PER_STEP,
    cache_mb: float = 16.0,
) -> AnalysisResult:
    """Searches `position` once, in a GameSearch of its own (no table kept for a game); stops at
    `visits`, after `seconds` (once the root has MIN_TIMED_VISITS), on `stop`, or when the
    callback returns False. Budgets out of range (popucom.limits: check_visits, check_seconds)
    raise ValueError."""
    visits, seconds = check_visits(visits), check_seconds(seconds)
    if visits is None and seconds is None and stop is None:
        raise ValueError("analyze needs a visit budget, a time budget or a stop event")
    if position.is_over:
        raise ValueError("the game is over: there is nothing to analyze")
    session = GameSearch(
        evaluator, params=params, cache_mb=cache_mb, leaves_per_step=leaves_per_step, endgame_table_mb=0
    )
    session.set_position(position)
    ended = stop or threading.Event()

    def report(result: AnalysisResult) -> None:
        if callback is not None and callback(result) is False:
            ended.set()

    return session.search(visits, seconds, callback=report, report_every_s=report_every_s, stop=ended)
