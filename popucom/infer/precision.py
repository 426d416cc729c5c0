"""The precision of the torch backend's matrix products in CPU inference.

On CPUs with bf16 arithmetic (AVX512-BF16 or AMX) oneDNN multiplies bf16 matrices with fp32
accumulation much faster than fp32 ones at this network's shapes (docs/benchmarks.md, "Design
notes behind the figures", bf16 matrix products). `bf16` gives the sub-layers'
products bf16 operands and keeps everything else (norms, attention, softmaxes, the heads) in
fp32, except that the attention kernel takes its logits and value sums as bf16 dot products
where the CPU has AVX512-BF16 (csrc/nn/pope_attention_dots.cpp); bf16 autocast of the whole
forward was slower there, since it also moves the attention out of the fused kernel.
popucom.experiments.precision measures speed, output error and strength: bf16 products, and the
attention's bf16 dot products on top of them, run faster and play as fp32 does (its figures are
in docs/benchmarks.md, "Same play on every path"). Below NARROW_MATMUL_MIN_BATCH positions
(popucom.nn.layers) the products stay fp32: the conversions cost more than they save there.

POPUCOM_CPU_MATMUL (auto | fp32 | bf16) sets the process-wide default, `auto`: bf16 where the
CPU has the instructions, fp32 elsewhere. POPUCOM_CPU_ISA=avx2 (or avx512) makes an AVX512-BF16
CPU take the path of one without them here and in every C++ kernel (csrc/nn/cpu_level.h).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .. import _core

if TYPE_CHECKING:
    import torch

ENV = "POPUCOM_CPU_MATMUL"
CHOICES = ("auto", "fp32", "bf16")
DEFAULT = "auto"


def cpu_has_bf16() -> bool:
    """Whether this CPU has bf16 arithmetic (AVX512-BF16, which every CPU with AMX has too) and
    $POPUCOM_CPU_ISA leaves it on: one answer with the C++ kernels' (popucom._core.cpu_level),
    so that a capped run takes a CPU-without-bf16's path everywhere."""
    return _core.cpu_level() == "avx512_bf16"


def cpu_matmul_is_bf16(choice: str | None = None) -> bool:
    """Whether the products take bf16 operands for `choice` (default: $POPUCOM_CPU_MATMUL, else
    DEFAULT), without torch. `bf16` on a CPU without bf16 arithmetic is refused: it would run
    several times slower, not faster."""
    choice = choice or os.environ.get(ENV) or DEFAULT
    if choice not in CHOICES:
        raise ValueError(f"{ENV}: unknown CPU matmul precision '{choice}' (choose {', '.join(CHOICES)})")
    if choice == "bf16" and not cpu_has_bf16():
        raise ValueError(f"{ENV}=bf16: this CPU has no bf16 arithmetic (AVX512-BF16 or AMX); use fp32 or auto")
    return choice == "bf16" or (choice == "auto" and cpu_has_bf16())


def cpu_matmul_dtype(choice: str | None = None) -> torch.dtype:
    """The operand dtype of cpu_matmul_is_bf16(choice)."""
    import torch

    return torch.bfloat16 if cpu_matmul_is_bf16(choice) else torch.float32
