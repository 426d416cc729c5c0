"""The precision of the torch backend's matrix products in CPU inference.

On CPUs with bf16 arithmetic (AVX512-BF16 or AMX) oneDNN multiplies bf16 matrices with fp32
accumulation about twice as fast as fp32 ones at this network's shapes (2592 x 64 x 192: 86
against 208 GFLOP/s on one core of a 2-core AMD EPYC with AVX512-BF16). `bf16` gives the sub-layers'
products bf16 operands and keeps everything else (norms, attention, softmaxes, the heads) in
fp32, except that the attention kernel takes its logits and value sums as bf16 dot products
where the CPU has AVX512-BF16 (csrc/nn/pope_attention_dots.cpp); bf16 autocast of the whole
forward was slower there, since it also moves the attention out of the fused kernel.
popucom.experiments.precision measures speed, output error and strength.

Measured on v9 (popucom.experiments.precision, 2 threads): 1.18x the evaluations/s at batch 16 and 1.31x at
192; the move probabilities move by 0.0002 on average (0.04 at most), the win/draw/loss ones by
0.001 (0.01 at most), the top move is the same in 97.9% of positions, and over 400 games at 50
visits the bf16 player scored 0.516 [0.489, 0.544] against the fp32 one. The attention's bf16
dot products on top (the v10 candidate at iteration 284 of v9's run, `--pair bf16-products
bf16`): 1.14-1.29x the evaluations/s, 0.496 [0.470, 0.525] over 400 games. Below
NARROW_MATMUL_MIN_BATCH positions (popucom.nn.layers) the products stay fp32: the conversions
cost more than they save there.

POPUCOM_CPU_MATMUL (auto | fp32 | bf16) sets the process-wide default, `auto`: bf16 where the
CPU has the instructions, fp32 elsewhere. POPUCOM_CPU_ISA=avx2 (or avx512) makes an AVX512-BF16
CPU take the path of one without them here and in every C++ kernel (csrc/nn/cpu_level.h).
"""

from __future__ import annotations

import os

import torch

from .. import _core

ENV = "POPUCOM_CPU_MATMUL"
CHOICES = ("auto", "fp32", "bf16")
DEFAULT = "auto"


def cpu_has_bf16() -> bool:
    """Whether this CPU has bf16 arithmetic (AVX512-BF16, which every CPU with AMX has too) and
    $POPUCOM_CPU_ISA leaves it on: one answer with the C++ kernels' (popucom._core.cpu_level),
    so that a capped run takes a CPU-without-bf16's path everywhere."""
    return _core.cpu_level() == "avx512_bf16"


def cpu_matmul_dtype(choice: str | None = None) -> torch.dtype:
    """The operand dtype for `choice` (default: $POPUCOM_CPU_MATMUL, else DEFAULT). `bf16` on a
    CPU without bf16 arithmetic is refused: it would run several times slower, not faster."""
    choice = choice or os.environ.get(ENV) or DEFAULT
    if choice not in CHOICES:
        raise ValueError(f"{ENV}: unknown CPU matmul precision '{choice}' (choose {', '.join(CHOICES)})")
    if choice == "bf16" and not cpu_has_bf16():
        raise ValueError(f"{ENV}=bf16: this CPU has no bf16 arithmetic (AVX512-BF16 or AMX); use fp32 or auto")
    if choice == "bf16" or (choice == "auto" and cpu_has_bf16()):
        return torch.bfloat16
    return torch.float32
