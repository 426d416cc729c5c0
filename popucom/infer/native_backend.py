"""The native evaluator: a training checkpoint's network in one C++ call per batch
(popucom.nn.native, csrc/nn/native_net.*), on CPUs with AVX-512.

The fastest path where it runs: several times OpenVINO's evaluations/s, in bf16 products and
in fp32 (bench/inference.py; the figures are in docs/benchmarks.md, "Inference backends").
Elsewhere `auto` picks OpenVINO (popucom.infer.choice).

The products' precision is the torch backend's choice for CPU inference (popucom.infer.precision:
$POPUCOM_CPU_MATMUL, else bf16 where the CPU has AVX512-BF16, fp32 elsewhere). A CPU without
AVX-512 (or one capped by POPUCOM_CPU_ISA) is a RuntimeError, as a backend that is not installed
is; a network it does not serve (mHC, heads of another width) a ValueError; both say why.
"""

from __future__ import annotations

import numpy as np
import torch

from .. import _core
from ..nn.model import PopucomNet
from ..nn.native import NativeForward, native_forward_refusal, network_refusal
from .choice import AVX512_LEVELS
from .contract import EvalOutput
from .precision import cpu_matmul_dtype
from .threads import resolve_threads


def cpu_refusal(level: str | None = None) -> str | None:
    """Why this CPU (at `level`, default popucom._core.cpu_level()) cannot run the native
    forward, or None where it can."""
    level = level or _core.cpu_level()
    if level in AVX512_LEVELS:
        return None
    capped = _core.detected_cpu_level() in AVX512_LEVELS
    return (
        f"the native backend needs AVX-512, and this CPU's kernels run at level {level}"
        + (" (capped by POPUCOM_CPU_ISA)" if capped else "")
        + ": use backend openvino (or auto, which picks it) or torch"
    )


class NativeEvaluator:
    def __init__(self, net: PopucomNet, threads: int | None = 1, cpu_matmul: str | None = None) -> None:
        """cpu_matmul: auto | fp32 | bf16, the products' precision (default $POPUCOM_CPU_MATMUL)."""
        refusal = cpu_refusal()
        if refusal is not None:
            raise RuntimeError(refusal)
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

    def __call__(self, features: np.ndarray) -> EvalOutput:
        return EvalOutput.from_outputs(self.run_all(features))

    def describe(self) -> str:
        return (
            f"native cpu (whole network in C++, {'bf16' if self.forward.bf16 else 'fp32'} products, "
            f"{self.threads} thread{'s' if self.threads > 1 else ''}, "
            f"pieces of {self.forward.piece_positions} positions)"
        )
