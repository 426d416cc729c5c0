"""Export parity: an exported model, through a runtime, against the PyTorch network it came from.
It lives in infer (which may import nn), so that nn never imports a backend."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from ..data.positions import random_features
from ..nn.model import ExportWrapper, PopucomNet
from .onnx_backend import OnnxEvaluator


def output_difference(
    net: PopucomNet, run_all: Callable[[np.ndarray], dict[str, np.ndarray]], batch: int, seed: int = 0
) -> float:
    """Largest difference over every output between PyTorch and `run_all` (an evaluator's, of the
    same network through another runtime) on `batch` positions from random play."""
    features = random_features(batch, seed, komi_range=5)
    with torch.no_grad():
        expected = ExportWrapper(net).eval()(torch.from_numpy(features))
    got = run_all(features)
    return max(
        float(np.abs(e.numpy() - got[name]).max())
        for name, e in zip((o.name for o in net.outputs), expected, strict=True)
    )


def max_abs_difference(net: PopucomNet, onnx_path: str | Path, batch: int, seed: int = 0) -> float:
    """Largest output difference between PyTorch and onnxruntime on real positions, over every output."""
    return output_difference(net, OnnxEvaluator(onnx_path, threads=1).run_all, batch, seed)
