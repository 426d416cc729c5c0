"""Drives a C++ MultiSearch with one evaluator: gather → evaluate → backup.

The loop crosses into Python once per batch (never per node): C++ fills a
preallocated input buffer, the evaluator runs on the whole batch, and C++
takes the outputs back matched by slot index.

A step is all or nothing: if the evaluator fails, returns outputs the contract
refuses (check_outputs: wrong shapes, NaN or inf, a wdl that is no
distribution), the core refuses them, or the step is interrupted (Ctrl-C), the
gathered batch is cancelled and the trees are as before the step; the next step
gathers again.

Thread safety: one thread at a time. A step entered while another thread is
inside one raises RuntimeError and leaves that other step alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import _core
from ..infer.contract import Evaluator, check_outputs


@dataclass
class SearchTimings:
    """Where the wall time of searching went."""

    steps: int = 0
    leaves: int = 0
    search_s: float = 0.0  # gather + backup (C++ tree work, encoding)
    eval_s: float = 0.0  # inside the evaluator call

    @property
    def total_s(self) -> float:
        return self.search_s + self.eval_s

    @property
    def eval_share(self) -> float:
        return self.eval_s / self.total_s if self.total_s else 0.0

    @property
    def mean_batch(self) -> float:
        return self.leaves / self.steps if self.steps else 0.0


class BatchedSearch:
    """A MultiSearch plus its input buffer and evaluator."""

    def __init__(
        self,
        evaluator: Evaluator,
        num_games: int,
        params: _core.SearchParams | None = None,
        cache_mb: float = 64.0,
        threads: int = 1,
        seed: int = 0,
    ) -> None:
        version = getattr(evaluator, "feature_version", None)
        if version != _core.FEATURE_VERSION:
            raise ValueError(
                f"the evaluator expects feature version {version}, this build encodes version {_core.FEATURE_VERSION}"
            )
        self.evaluator = evaluator
        self.params = params or _core.SearchParams()  # the settings the C++ search copied
        self.cache = _core.EvalCache(cache_mb)
        self.search = _core.MultiSearch(num_games, self.params, self.cache, threads, seed)
        shape = (self.search.max_batch, _core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE)
        self.inputs = np.zeros(shape, dtype=np.float32)
        self.timings = SearchTimings()
        self._stepping = threading.Lock()  # held by the one thread inside step()

    def step(self) -> int:
        """One gather → evaluate → backup round; returns the number of leaves evaluated.
        Raises RuntimeError if another thread is inside step(); any failure leaves the trees
        as they were before the call."""
        if not self._stepping.acquire(blocking=False):
            raise RuntimeError(
                "BatchedSearch is in use by another thread (inside step); "
                "give each thread its own or serialise the calls"
            )
        try:
            return self._step()
        finally:
            self._stepping.release()

    def _step(self) -> int:
        clock = time.perf_counter
        t0 = clock()
        try:
            n = self.search.gather(self.inputs)
            t1 = clock()
            if n:
                out = check_outputs(self.evaluator(self.inputs[:n]), n)
                t2 = clock()
                self.search.backup(*out)  # refuses a bad batch before it touches any tree
                t3 = clock()
        except BaseException:
            # The backup never happened: take the batch's virtual losses back, or every later
            # gather, reset and play would refuse to run while it is pending.
            if self.search.pending:
                self.search.cancel_pending()
            raise
        if n:
            self.timings.search_s += (t1 - t0) + (t3 - t2)
            self.timings.eval_s += t2 - t1
            self.timings.steps += 1
            self.timings.leaves += n
        else:
            self.timings.search_s += t1 - t0
        return n

    def run(self) -> None:
        """Steps until every game has reached its visit target."""
        while not self.search.all_done():
            self.step()

    def play_moves(
        self,
        games: list[_core.Game],
        mine: list[int],
        visits: int,
        temperature: Callable[[int], float] = lambda ply: 0.0,
    ) -> list[int]:
        """Plays one searched move in each game of `mine`, searched together from fresh trees
        (each move gets exactly `visits`), and returns them in the order of `mine`; the other
        games wait. temperature: the move temperature at a game's ply (Player.move_temperature)."""
        search = self.search
        for g in range(len(games)):
            if g in mine:
                search.reset(g, games[g].position)
            search.set_visit_target(g, visits if g in mine else 0)
        while not all(search.done(g) for g in mine):
            self.step()
        chosen = [search.choose_move(g, temperature(games[g].position.ply)) for g in mine]
        for g, move in zip(mine, chosen, strict=True):
            games[g].play(move)
        return chosen
