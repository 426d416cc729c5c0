"""The evaluator contract: what every inference backend takes and returns.

An evaluator is called with one encoded batch, float32 of shape
(N, NUM_FEATURE_PLANES, 9, 9) as `popucom.encode_batch` and the search fill it,
and returns an `EvalOutput` whose row i answers input row i:

- ``policy_logits``: float32 (N, NUM_SQUARES), raw logits over the squares; the
  search applies the softmax over the legal moves itself, so illegal squares may
  hold anything finite;
- ``wdl``: float32 (N, 3), probabilities of win, draw, loss for the side to move;
- ``score``: float32 (N,), the expected final floor margin (komi included) for
  the side to move;
- ``value_error``: float32 (N,) >= 0, the expected squared error of the value's
  win - loss, or None from a model without that head (the search then weights
  every playout alike).

The fields are named as the deployed model's outputs (popucom.nn.outputs.OUTPUTS),
which give their shapes; a backend builds its answer from the model's named
outputs with `EvalOutput.from_outputs`. Backends (torch, ONNX Runtime, TensorRT,
the fakes in fake.py) implement the same call. Each states the feature version
it was trained on, so a mismatched model is refused before it plays.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..nn.outputs import OUTPUTS_BY_NAME


class EvalOutput(NamedTuple):
    policy_logits: np.ndarray  # float32 (N, NUM_SQUARES)
    wdl: np.ndarray  # float32 (N, 3)
    score: np.ndarray  # float32 (N,)
    value_error: np.ndarray | None = None  # float32 (N,), only from a model with that head

    @classmethod
    def from_outputs(cls, outputs: Mapping[str, np.ndarray]) -> EvalOutput:
        """The search's share of a model's outputs, looked up by name (value_error where the
        model has it)."""
        return cls(outputs["policy_logits"], outputs["wdl"], outputs["score"], outputs.get("value_error"))


@runtime_checkable
class Evaluator(Protocol):
    """What the search and the front ends use of an evaluator: its call on a batch, the feature
    version it was trained on, and the words that say what plays (describe)."""

    feature_version: int

    def __call__(self, features: np.ndarray) -> EvalOutput: ...

    def describe(self) -> str:
        """What runs, in a user's words: the file, the runtime, its precision and threads."""
        ...


class Backend(ABC):
    """What every inference backend shares (native, ONNX Runtime, OpenVINO, torch, TensorRT):
    it answers with every named output of the model (run_all: the parity checks, the
    benchmarks and the losses read them all), the search takes its share of them through the
    call, and it says what runs. A backend sets feature_version and threads (its thread
    budget) when it is made; the base counts its calls (run_all), a backend computes them
    (compute_outputs)."""

    feature_version: int
    threads: int = 1
    calls: int = 0

    def run_all(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the model for one batch, keyed by its name (popucom.nn.outputs)."""
        outputs = self.compute_outputs(features)
        self.calls += 1
        return outputs

    @abstractmethod
    def compute_outputs(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """run_all's answer, computed by the backend."""

    @abstractmethod
    def describe(self) -> str:
        """What runs, in a user's words: the file, the runtime, its precision and threads."""

    def __call__(self, features: np.ndarray) -> EvalOutput:
        return EvalOutput.from_outputs(self.run_all(features))


# How far a row of wdl may sum from 1: a float16 or bfloat16 softmax rounds by up to ~1e-3.
WDL_SUM_TOLERANCE = 1e-2


def check_outputs(out: EvalOutput, n: int) -> EvalOutput:
    """Returns `out` as contiguous float32 arrays of the contract's shapes, or raises ValueError:
    for a wrong shape, a value that is not finite, or a wdl row that is not a probability
    distribution. Checked before the search sees a batch, so one bad batch changes no tree."""
    if not isinstance(out, tuple) or len(out) not in (3, len(EvalOutput._fields)):
        raise ValueError("an evaluator must return (policy_logits, wdl, score[, value_error])")
    arrays: dict[str, np.ndarray] = {}
    for value, name in zip(out, EvalOutput._fields):
        if value is None and name == "value_error":
            continue
        if value is None:
            raise ValueError(f"evaluator output {name} is missing (None)")
        array = arrays[name] = np.ascontiguousarray(value, dtype=np.float32)
        shape = (n, *OUTPUTS_BY_NAME[name].shape)
        if array.shape != shape:
            raise ValueError(f"evaluator output {name} has shape {array.shape}, expected {shape}")
        _check_finite(array, name)
    _check_distribution(arrays["wdl"], "wdl")
    error = arrays.get("value_error")
    if error is not None and (error < 0).any():
        row = int(np.flatnonzero(error < 0)[0])
        raise ValueError(f"evaluator output value_error is negative in row {row}: {error[row]:.4g}")
    return EvalOutput(arrays["policy_logits"], arrays["wdl"], arrays["score"], error)


def _check_finite(array: np.ndarray, name: str) -> None:
    finite = np.isfinite(array)
    if not finite.all():
        row = int(np.argwhere(~finite)[0][0])
        raise ValueError(f"evaluator output {name} is not finite (NaN or inf) in row {row}")


def _check_distribution(probabilities: np.ndarray, name: str) -> None:
    """Rows of non-negative numbers that sum to 1 (within WDL_SUM_TOLERANCE)."""
    bad = (probabilities < 0).any(axis=1) | (np.abs(probabilities.sum(axis=1) - 1) > WDL_SUM_TOLERANCE)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"evaluator output {name} row {row} is not a probability distribution (each >= 0, sum 1): "
            f"{np.array2string(probabilities[row], precision=4)}"
        )
