"""Search from Python: the evaluator contract, the batched multi-game driver
and single-position analysis. The tree work itself is C++ (csrc/search)."""

from .analysis import AnalysisResult, analyze
from .batched import BatchedSearch, SearchTimings
from .evaluator import EvalOutput, Evaluator, TinyEvaluator, UniformEvaluator, check_outputs
from .game_search import GameSearch

__all__ = [
    "AnalysisResult",
    "BatchedSearch",
    "EvalOutput",
    "Evaluator",
    "GameSearch",
    "SearchTimings",
    "TinyEvaluator",
    "UniformEvaluator",
    "analyze",
    "check_outputs",
]
