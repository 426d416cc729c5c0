"""The evaluator contract: what every inference backend takes and returns.

An evaluator is called with one encoded batch, float32 of shape
(N, NUM_FEATURE_PLANES, 9, 9) as `popucom.encode_batch` and the search fill it,
and returns an `EvalOutput` whose row i answers input row i:

- ``policy_logits``: float32 (N, NUM_SQUARES), raw logits over the squares; the
  search applies the softmax over the legal moves itself, so illegal squares may
  hold anything finite;
- ``wdl``: float32 (N, 3), probabilities of win, draw, loss for the side to move;
- ``score``: float32 (N,), the expected final floor margin (komi included) for
  the side to move.

The fields are named as the deployed model's outputs (popucom.nn.outputs.OUTPUTS),
which give their shapes; a backend builds its answer from the model's named
outputs with `EvalOutput.from_outputs`. Backends (torch, ONNX Runtime, TensorRT,
the fakes in fake.py) implement the same call. Each states the feature version
it was trained on, so a mismatched model is refused before it plays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..nn.outputs import OUTPUTS_BY_NAME


class EvalOutput(NamedTuple):
    policy_logits: np.ndarray  # float32 (N, NUM_SQUARES)
    wdl: np.ndarray  # float32 (N, 3)
    score: np.ndarray  # float32 (N,)

    @classmethod
    def from_outputs(cls, outputs: Mapping[str, np.ndarray]) -> EvalOutput:
        """The search's share of a model's outputs, looked up by name."""
        return cls(*(outputs[name] for name in cls._fields))


@runtime_checkable
class Evaluator(Protocol):
    feature_version: int

    def __call__(self, features: np.ndarray) -> EvalOutput: ...


def check_outputs(out: EvalOutput, n: int) -> EvalOutput:
    """Returns `out` as contiguous float32 arrays of the contract's shapes, or raises ValueError."""
    if not isinstance(out, tuple) or len(out) != len(EvalOutput._fields):
        raise ValueError("an evaluator must return (policy_logits, wdl, score)")
    arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in out]
    for array, name in zip(arrays, EvalOutput._fields):
        shape = (n, *OUTPUTS_BY_NAME[name].shape)
        if array.shape != shape:
            raise ValueError(f"evaluator output {name} has shape {array.shape}, expected {shape}")
    return EvalOutput(*arrays)
