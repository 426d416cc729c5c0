"""Which backend `auto` picks for a model file on this machine, and why: the measured rule.

    checkpoint (.pt), CPU   native    where the network is one the native forward serves (its
                                      kernels run at every popucom._core.cpu_level)
                            openvino  else, where openvino is installed and an exported model of
                                      the same network lies beside it (NAME.onnx, as shipped
                                      weights and the pipeline's models have)
                            torch     else
    checkpoint, GPU         torch
    exported model (.onnx)  openvino  on the CPU where it is installed, else onnx (ONNX Runtime)
    TensorRT plan           trt

Why (bench/inference.py; docs/benchmarks.md, "Inference backends", has the figures): the native
forward runs ahead of OpenVINO by more than the 15% a hand-written path must win by, on AVX-512
(bf16 and fp32 products) and on the AVX2 path alike, so it is taken wherever it serves the
network. For the others OpenVINO is well ahead of torch eager fp32 and ONNX Runtime, and it plays
as the torch network does. ONNX Runtime and torch remain for machines without openvino wheels.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from .. import _core


@dataclass(frozen=True)
class Machine:
    """What the rule asks of the machine (tests give their own)."""

    cpu_level: str  # popucom._core.cpu_level(): baseline | avx2 | avx512 | avx512_bf16
    openvino: bool  # whether the openvino package is installed

    @classmethod
    def here(cls) -> Machine:
        return cls(cpu_level=_core.cpu_level(), openvino=importlib.util.find_spec("openvino") is not None)


@dataclass(frozen=True)
class Choice:
    backend: str
    why: str


def exported_beside(checkpoint: str | Path) -> Path | None:
    """The exported model shipped beside a checkpoint (NAME.onnx for NAME.pt), if there is one."""
    path = Path(checkpoint).with_suffix(".onnx")
    return path if path.is_file() else None


def choose_backend(
    kind: str,
    device: str,
    machine: Machine,
    network_refusal: str | None = None,
    exported: Path | None = None,
) -> Choice:
    """The backend for a model of `kind` (factory.model_kind) on `device`, by the rule above.

    network_refusal: for a checkpoint, why the native forward cannot run its network on any CPU
    (popucom.nn.native.network_refusal), None where it can. exported: its exported model, if any."""
    if kind == "plan":
        return Choice("trt", "a TensorRT plan")
    if kind == "network":
        return Choice("native", "a network file")
    if device != "cpu":
        return Choice("torch" if kind == "checkpoint" else "onnx", f"device {device}")
    if kind == "onnx":
        if machine.openvino:
            return Choice("openvino", "an exported model on the CPU")
        return Choice("onnx", "openvino is not installed")
    if network_refusal is None:
        return Choice("native", f"the CPU runs the native forward ({machine.cpu_level})")
    why_not_native = f"the native forward {network_refusal}"
    if not machine.openvino:
        return Choice("torch", f"{why_not_native}, and openvino is not installed")
    if exported is None:
        return Choice("torch", f"{why_not_native}, and no exported model (.onnx) lies beside the checkpoint")
    return Choice("openvino", f"{why_not_native}; {exported.name} beside the checkpoint")
