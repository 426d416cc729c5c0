"""Inference: the evaluator contract (contract.py), the backends implementing it (native,
OpenVINO, ONNX Runtime, torch, TensorRT; network-free fakes in fake.py), `load_evaluator`, the
one way to get an evaluator from a model file, and the rule its `auto` follows (choice.py)."""

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
