"""Inference backends implementing the evaluator contract (popucom.search.evaluator),
and `load_evaluator`, the one way to get an evaluator from a model file."""

from .factory import MODEL_SUFFIXES, load_evaluator, model_kind

__all__ = ["MODEL_SUFFIXES", "load_evaluator", "model_kind"]
