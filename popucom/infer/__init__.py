"""Inference: the evaluator contract (contract.py), the backends implementing it (native,
OpenVINO, ONNX Runtime, torch, TensorRT; network-free fakes in fake.py), `load_evaluator`, the
one way to get an evaluator from a model file, and the rule its `auto` follows (choice.py).

Each name loads with its module on first use, so that the backend names (backends.py) are read
without numpy (popucom.lazy_exports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .contract import EvalOutput, Evaluator, check_outputs
    from .factory import MODEL_SUFFIXES, load_evaluator, model_kind
    from .fake import TinyEvaluator, UniformEvaluator

__all__ = [
    "MODEL_SUFFIXES",
    "EvalOutput",
    "Evaluator",
    "TinyEvaluator",
    "UniformEvaluator",
    "check_outputs",
    "load_evaluator",
    "model_kind",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "EvalOutput": "contract",
        "Evaluator": "contract",
        "check_outputs": "contract",
        "MODEL_SUFFIXES": "factory",
        "load_evaluator": "factory",
        "model_kind": "factory",
        "TinyEvaluator": "fake",
        "UniformEvaluator": "fake",
    },
)
