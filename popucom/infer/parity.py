"""Export parity: the exported ONNX model against the PyTorch network it came from.
It lives in infer (which may import nn), so that nn never imports a backend."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..data.positions import random_features
from ..nn.model import ExportWrapper, PopucomNet
from ..nn.outputs import OUTPUT_NAMES
from .onnx_backend import OnnxEvaluator


def max_abs_difference(net: PopucomNet, onnx_path: str | Path, batch: int, seed: int = 0) -> float:
    """Largest output difference between PyTorch and onnxruntime on real positions, over every output."""
    features = random_features(batch, seed, komi_range=5)
    with torch.no_grad():
        expected = ExportWrapper(net).eval()(torch.from_numpy(features))
    got = OnnxEvaluator(onnx_path, threads=1).run_all(features)
    return max(float(np.abs(e.numpy() - got[name]).max()) for name, e in zip(OUTPUT_NAMES, expected, strict=True))
