"""PyTorch evaluator (CPU or CUDA, eager or torch.compile)."""

from __future__ import annotations

import numpy as np
import torch

from ..nn.model import ExportWrapper, PopucomNet
from ..search.evaluator import EvalOutput


class TorchEvaluator:
    def __init__(self, net: PopucomNet, device: str = "cpu", compile: bool = False, half: bool = False) -> None:
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError("torch backend: CUDA was requested but torch sees no GPU")
        self.device = torch.device(device)
        self.model = ExportWrapper(net).to(self.device).eval()
        self.dtype = torch.float16 if half and self.device.type == "cuda" else torch.float32
        if self.dtype != torch.float32:
            self.model = self.model.to(self.dtype)
        self.forward = torch.compile(self.model) if compile else self.model
        self.feature_version = net.config.feature_version
        self.calls = 0

    @torch.inference_mode()
    def __call__(self, features: np.ndarray) -> EvalOutput:
        self.calls += 1
        x = torch.from_numpy(features).to(self.device, self.dtype, non_blocking=True)
        policy, wdl, score, _ = self.forward(x)
        return EvalOutput(policy.float().cpu().numpy(), wdl.float().cpu().numpy(), score.float().cpu().numpy())

    def describe(self) -> str:
        return f"torch {self.device} ({'compiled' if self.forward is not self.model else 'eager'}, {self.dtype})"
