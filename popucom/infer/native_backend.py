"""The native evaluator: a training checkpoint's network in one C++ call per batch
(popucom.nn.native, csrc/nn/native_net.*), on any CPU: its kernels are built for AVX-512,
AVX2/FMA and the build's own level (SSE, NEON), and the widest the CPU runs is taken.

Where `auto` picks it over OpenVINO is popucom.infer.choice's measured rule (bench/inference.py;
the figures are in docs/benchmarks.md, "Inference backends").

The products' precision is the torch backend's choice for CPU inference (popucom.infer.precision:
$POPUCOM_CPU_MATMUL, else bf16 where the CPU has AVX512-BF16, fp32 elsewhere). A network it
does not serve (mHC, heads of another width, bf16 products asked of a CPU without AVX512-BF16)
is a ValueError that says why.
"""

from __future__ import annotations

import numpy as np
import torch

from ..nn.model import PopucomNet
from ..nn.native import NativeForward, native_forward_refusal, network_refusal
from .contract import Backend
from .precision import cpu_matmul_dtype
from .threads import resolve_threads


class NativeEvaluator(Backend):
    def __init__(self, net: PopucomNet, threads: int | None = 1, cpu_matmul: str | None = None) -> None:
        """cpu_matmul: auto | fp32 | bf16, the products' precision (default $POPUCOM_CPU_MATMUL)."""
        refusal = network_refusal(net)
        if refusal is not None:
            raise ValueError(f"the native backend cannot run this network: {refusal}; use backend torch")
        bf16 = cpu_matmul_dtype(cpu_matmul) == torch.bfloat16
        refusal = native_forward_refusal(net, bf16)
        if refusal is not None:
            raise ValueError(f"the native backend cannot run this network: {refusal}; use backend torch")
        self.threads = resolve_threads(threads)
        self.forward = NativeForward(net, self.threads, bf16=bf16)
        self.feature_version = net.config.feature_version
        self.output_names = tuple(o.name for o in net.outputs)
        self.device = "cpu"
        self.calls = 0

    def run_all(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the deployed model (the network's outputs), keyed by name."""
        self.calls += 1
        return dict(zip(self.output_names, self.forward(features), strict=True))

    def describe(self) -> str:
        return (
            f"native cpu (whole network in C++, {'bf16' if self.forward.bf16 else 'fp32'} products, "
            f"{self.threads} thread{'s' if self.threads > 1 else ''}, "
            f"pieces of {self.forward.piece_positions} positions)"
        )
