"""The evaluator contract: what every inference backend takes and returns.

An evaluator is called with one encoded batch, float32 of shape
(N, NUM_FEATURE_PLANES, 9, 9) as `popucom.encode_batch` and the search fill it,
and returns an `EvalOutput` whose row i answers input row i:

- ``policy_logits``: float32 (N, 81), raw logits over the squares; the search
  applies the softmax over the legal moves itself, so illegal squares may hold
  anything finite;
- ``wdl``: float32 (N, 3), probabilities of win, draw, loss for the side to move;
- ``score``: float32 (N,), the expected final floor margin (komi included) for
  the side to move.

Backends (torch, ONNX Runtime, TensorRT) implement the same call. Each states
the feature version it was trained on, so a mismatched model is refused before
it plays.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from .. import _core


class EvalOutput(NamedTuple):
    policy_logits: np.ndarray  # float32 (N, 81)
    wdl: np.ndarray  # float32 (N, 3)
    score: np.ndarray  # float32 (N,)


@runtime_checkable
class Evaluator(Protocol):
    feature_version: int

    def __call__(self, features: np.ndarray) -> EvalOutput: ...


def check_outputs(out: EvalOutput, n: int) -> EvalOutput:
    """Returns `out` as contiguous float32 arrays of the contract's shapes, or raises ValueError."""
    if not isinstance(out, tuple) or len(out) != 3:
        raise ValueError("an evaluator must return (policy_logits, wdl, score)")
    arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in out]
    for array, name, shape in zip(arrays, EvalOutput._fields, [(n, _core.NUM_SQUARES), (n, 3), (n,)]):
        if array.shape != shape:
            raise ValueError(f"evaluator output {name} has shape {array.shape}, expected {shape}")
    return EvalOutput(*arrays)


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
        margin = (features[:, p["own_floor_count"], 0, 0] - features[:, p["opponent_floor_count"], 0, 0]) * 81.0
        margin = margin + features[:, p["komi"], 0, 0] * _core.KOMI_SCALE
        value = np.tanh(margin / 8.0)
        draw = np.full(n, 0.1, dtype=np.float32)
        wdl = np.stack([(1 + value) / 2 * 0.9, draw, (1 - value) / 2 * 0.9], axis=1)
        return EvalOutput(logits.reshape(n, -1).astype(np.float32), wdl.astype(np.float32), margin.astype(np.float32))
