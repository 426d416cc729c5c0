"""Single-position analysis on the same search code as self-play.

`analyze` searches one position until a visit or time budget runs out, the
`stop` event is set, or the callback returns False; the callback sees the
search live (for a GUI or a streaming engine command).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import _core
from ..infer.contract import Evaluator
from ..limits import MIN_TIMED_VISITS, check_seconds, check_visits
from .batched import BatchedSearch


@dataclass
class AnalysisResult:
    visits: int
    winrate: float  # root, side to move, in [0, 1]
    value: float  # root win - loss, side to move
    score: float  # root expected final margin, side to move
    # per move: move, visits, weight, winrate, score, prior, lcb, pv, and proven / exact_score (the
    # exact value and margin the search proved for it, None while it has not)
    moves: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    # The network's own win/draw/loss at the root (side to move), where the caller evaluated it:
    # the tree backs up win - loss only, so a draw share exists only for the raw evaluation.
    root_wdl: tuple[float, float, float] | None = None
    # The move the search plays at temperature 0 (LCB among well-visited moves, exact in the
    # endgame: SearchParams): it can differ from best_move, the most visited.
    chosen: int | None = None

    @property
    def best_move(self) -> int | None:
        return self.moves[0]["move"] if self.moves else None


def snapshot(search: _core.MultiSearch, started: float, pv_length: int = 10) -> AnalysisResult:
    root = search.root_info(0)
    return AnalysisResult(
        visits=root["visits"],
        winrate=root["winrate"],
        value=root["value"],
        score=root["score"],
        moves=search.move_infos(0, pv_length),
        seconds=time.perf_counter() - started,
        chosen=search.choose_move(0, 0.0) if root["visits"] > 0 else None,
    )


def analyze(
    position: _core.Position,
    evaluator: Evaluator,
    visits: int | None = 800,
    seconds: float | None = None,
    callback: Callable[[AnalysisResult], bool | None] | None = None,
    report_every_s: float = 0.2,
    stop: threading.Event | None = None,
    params: _core.SearchParams | None = None,
    leaves_per_step: int = 16,
    cache_mb: float = 16.0,
) -> AnalysisResult:
    """Searches `position`; stops at `visits`, after `seconds` (once the root has MIN_TIMED_VISITS),
    on `stop`, or when callback returns False. Budgets out of range (popucom.limits: check_visits,
    check_seconds) raise ValueError."""
    visits, seconds = check_visits(visits), check_seconds(seconds)
    if visits is None and seconds is None and stop is None:
        raise ValueError("analyze needs a visit budget, a time budget or a stop event")
    if position.is_over:
        raise ValueError("the game is over: there is nothing to analyze")
    params = params or _core.SearchParams()
    params.leaves_per_game = leaves_per_step
    driver = BatchedSearch(evaluator, num_games=1, params=params, cache_mb=cache_mb)
    search = driver.search
    search.reset(0, position)
    search.set_visit_target(0, visits if visits is not None else 2**31 - 1)
    started = last_report = time.perf_counter()
    while not search.done(0):
        if stop is not None and stop.is_set():
            break
        if seconds is not None and time.perf_counter() - started >= seconds:
            if search.visits(0) >= MIN_TIMED_VISITS:  # however small the budget: limits.py
                break
        driver.step()
        now = time.perf_counter()
        if callback is not None and now - last_report >= report_every_s:
            last_report = now
            if callback(snapshot(search, started)) is False:
                break
    result = snapshot(search, started)
    if callback is not None:
        callback(result)
    return result
