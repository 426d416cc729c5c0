"""The native evaluator: a network in one C++ call per batch (csrc/nn/native_net.*), on any CPU:
its kernels are built for AVX-512, AVX2/FMA and the build's own level (SSE, NEON), and the
widest the CPU runs is taken. It runs a training checkpoint's network (packed from torch,
popucom.nn.native) or a network file (`.pcnet`, popucom.nn.native_file), which it reads
without torch.

Where `auto` picks it over OpenVINO is popucom.infer.choice's measured rule (bench/inference.py;
the figures are in docs/benchmarks.md, "Inference backends").

The products' precision is the torch backend's choice for CPU inference (popucom.infer.precision:
$POPUCOM_CPU_MATMUL, else bf16 where the CPU has AVX512-BF16, fp32 elsewhere). A network it
does not serve (mHC, heads of another width, bf16 products asked of a CPU without AVX512-BF16)
is a ValueError that says why.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .contract import Backend
from .precision import cpu_matmul_is_bf16
from .threads import resolve_threads

if TYPE_CHECKING:
    from ..nn.model import PopucomNet


class Forward(Protocol):
    """What both native forwards are (nn.native.NativeForward, nn.native_file.FileForward):
    features in, the outputs in OUTPUTS order out, with their precision and piece size."""

    bf16: bool
    piece_positions: int

    def __call__(self, features: np.ndarray) -> tuple[np.ndarray, ...]: ...


class NativeEvaluator(Backend):
    """One of the native forwards (a checkpoint's network or a network file's) as an evaluator;
    made by of_network or from_network_file."""

    def __init__(
        self, forward: Forward, feature_version: int, output_names: tuple[str, ...], threads: int, source: str = ""
    ) -> None:
        self.forward = forward
        self.feature_version = feature_version
        self.output_names = output_names
        self.threads = threads
        self.source = source  # what describe() names before the runtime: a network file's name
        self.device = "cpu"

    @classmethod
    def of_network(cls, net: PopucomNet, threads: int | None = 1, cpu_matmul: str | None = None) -> NativeEvaluator:
        """A checkpoint's network. cpu_matmul: auto | fp32 | bf16, the products' precision
        (default $POPUCOM_CPU_MATMUL)."""
        from ..nn.native import NativeForward, native_forward_refusal, network_refusal

        refusal = network_refusal(net)
        if refusal is not None:
            raise ValueError(f"the native backend cannot run this network: {refusal}; use backend torch")
        bf16 = cpu_matmul_is_bf16(cpu_matmul)
        refusal = native_forward_refusal(net, bf16)
        if refusal is not None:
            raise ValueError(f"the native backend cannot run this network: {refusal}; use backend torch")
        threads = resolve_threads(threads)
        forward = NativeForward(net, threads, bf16=bf16)
        return cls(forward, net.config.feature_version, tuple(o.name for o in net.outputs), threads)

    @classmethod
    def from_network_file(
        cls, path: str | os.PathLike, threads: int | None = 1, cpu_matmul: str | None = None
    ) -> NativeEvaluator:
        """A network file's network (no torch needed); ValueError naming the file and what is
        wrong with it."""
        from ..nn.native_file import FileForward

        threads = resolve_threads(threads)
        forward = FileForward(path, threads, bf16=cpu_matmul_is_bf16(cpu_matmul))
        return cls(forward, forward.feature_version, forward.output_names, threads, f"{Path(path).name}, ")

    def compute_outputs(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the deployed model (the network's outputs), keyed by name."""
        return dict(zip(self.output_names, self.forward(features), strict=True))

    def describe(self) -> str:
        return (
            f"native cpu ({self.source}whole network in C++, {'bf16' if self.forward.bf16 else 'fp32'} products, "
            f"{self.threads} thread{'s' if self.threads > 1 else ''}, "
            f"pieces of {self.forward.piece_positions} positions)"
        )
