"""Search from Python: the batched multi-game driver and single-position analysis.
The tree work itself is C++ (csrc/search); the evaluator contract it calls is popucom.infer.contract.

Each name loads with its module on first use, so that the search settings (params.py) are
read without numpy (popucom.lazy_exports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .analysis import AnalysisResult
    from .batched import BatchedSearch, SearchTimings
    from .game_search import GameSearch, analyze

__all__ = [
    "AnalysisResult",
    "BatchedSearch",
    "GameSearch",
    "SearchTimings",
    "analyze",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AnalysisResult": "analysis",
        "analyze": "game_search",
        "BatchedSearch": "batched",
        "SearchTimings": "batched",
        "GameSearch": "game_search",
    },
)
