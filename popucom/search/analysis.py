"""What a search says about its root, as every front end shows it: AnalysisResult, and the
snapshot of a search that makes one. One position's analysis is game_search.analyze (a
GameSearch of its own).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .. import _core


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
