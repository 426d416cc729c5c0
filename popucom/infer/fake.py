"""Evaluators without a network, for tests and benchmarks: they keep the evaluator
contract (contract.py) at no cost, so the search runs without weights or torch."""

from __future__ import annotations

import numpy as np

from .. import _core
from .contract import EvalOutput


class UniformEvaluator:
    """Uniform policy, an even value, score 0: the zero-cost evaluator of tests and benchmarks."""

    feature_version = _core.FEATURE_VERSION

    def __init__(self, max_batch: int = 4096) -> None:
        self._logits = np.zeros((max_batch, _core.NUM_SQUARES), dtype=np.float32)
        self._wdl = np.tile(np.array([0.0, 1.0, 0.0], dtype=np.float32), (max_batch, 1))
        self._score = np.zeros(max_batch, dtype=np.float32)

    def __call__(self, features: np.ndarray) -> EvalOutput:
        n = len(features)
        if n > len(self._score):
            self.__init__(max_batch=n)
        return EvalOutput(self._logits[:n], self._wdl[:n], self._score[:n])

    def describe(self) -> str:
        return "a uniform fake network (no weights)"


class TinyEvaluator:
    """A small deterministic hand-written evaluator for tests: it prefers unpainted
    cells next to its own stones and values positions by the floor difference."""

    feature_version = _core.FEATURE_VERSION
    _planes = {name: i for i, (name, _) in enumerate(_core.FEATURE_PLANES)}

    def __call__(self, features: np.ndarray) -> EvalOutput:
        p = self._planes
        own = features[:, p["own_stones"]]
        near_own = np.zeros_like(own)
        near_own[:, 1:, :] += own[:, :-1, :]
        near_own[:, :-1, :] += own[:, 1:, :]
        near_own[:, :, 1:] += own[:, :, :-1]
        near_own[:, :, :-1] += own[:, :, 1:]
        logits = 0.7 * near_own + 0.3 * features[:, p["unpainted_floors"]]
        n = len(features)
        floors = features[:, p["own_floor_count"], 0, 0] - features[:, p["opponent_floor_count"], 0, 0]
        margin = floors * float(_core.NUM_SQUARES)  # the count planes hold floors / NUM_SQUARES
        margin = margin + features[:, p["komi"], 0, 0] * _core.KOMI_SCALE
        value = np.tanh(margin / 8.0)
        draw = np.full(n, 0.1, dtype=np.float32)
        wdl = np.stack([(1 + value) / 2 * 0.9, draw, (1 - value) / 2 * 0.9], axis=1)
        return EvalOutput(logits.reshape(n, -1).astype(np.float32), wdl.astype(np.float32), margin.astype(np.float32))

    def describe(self) -> str:
        return "a tiny fake network (no weights)"
