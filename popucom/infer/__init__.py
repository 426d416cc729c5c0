"""Inference backends implementing the evaluator contract (popucom.search.evaluator)."""
