"""Search from Python: the batched multi-game driver and single-position analysis.
The tree work itself is C++ (csrc/search); the evaluator contract it calls is popucom.infer.contract."""

from .analysis import AnalysisResult, analyze
from .batched import BatchedSearch, SearchTimings
from .game_search import GameSearch

__all__ = [
    "AnalysisResult",
    "BatchedSearch",
    "GameSearch",
    "SearchTimings",
    "analyze",
]
