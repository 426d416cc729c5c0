"""The C++ attention kernel alone, per variant and batch: ONE JSON line.

    python bench/attention_kernel.py [--batches 1 16 32 192] [--heads 4] [--head-dim 16] [--repeats 5]

Times `_core.pope_attention` (csrc/nn/pope_attention*.cpp: softplus, PoPE phases, the 81x81
logits, softmax and value sums of every (position, head)) without the network around it, on
random projections of the `small` preset's shape, on the calling thread (the kernel is
single-threaded). Variants: fp32 in and out; bf16 in and out with fp32 arithmetic; bf16 with
the logits and value sums as AVX512-BF16 dot products (`bf16_dots`, only where
`_core.pope_attention_bf16_dots_apply` says the CPU has them). The variants are interleaved
round by round and each figure is the median over rounds, in microseconds per call and
positions per second. Use it to compare kernel versions on one machine: build one, run this,
build the other, run it again, and quote both runs' figures with the machine line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import torch

from popucom import _core
from popucom.benchmarks import machine_info
from popucom.nn.layers import numpy_view


def kernel_calls(batch: int, heads: int, head_dim: int, seed: int = 0) -> dict:
    """One zero-argument call per variant on the same random inputs of `batch` positions."""
    rng = np.random.default_rng(seed)
    d = heads * head_dim
    qkv = rng.normal(0.0, 1.5, (batch, _core.NUM_SQUARES, 3 * d)).astype(np.float32)
    tables = rng.normal(0.0, 0.5, (2, heads, _core.NUM_SQUARES, 2, head_dim)).astype(np.float32)
    out = np.empty((batch, _core.NUM_SQUARES, d), np.float32)
    qkv_bf16 = numpy_view(torch.from_numpy(qkv).to(torch.bfloat16))
    out_bf16 = numpy_view(torch.empty(out.shape, dtype=torch.bfloat16))
    calls = {
        "fp32": lambda: _core.pope_attention(qkv, tables, out),
        "bf16": lambda: _core.pope_attention(qkv_bf16, tables, out_bf16),
    }
    if _core.pope_attention_bf16_dots_apply(head_dim):
        calls["bf16_dots"] = lambda: _core.pope_attention(qkv_bf16, tables, out_bf16, bf16_dots=True)
    return calls


def seconds_per_call(call, min_seconds: float = 0.2) -> float:
    """Mean time of one call over enough calls to fill min_seconds (after one warm-up call)."""
    call()
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < min_seconds:
        call()
        count += 1
    return elapsed / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 32, 192])
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--head-dim", type=int, default=16, choices=list(_core.POPE_HEAD_DIMS))
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds; the median is reported")
    parser.add_argument("--min-seconds", type=float, default=0.2, help="timing length of one variant in one round")
    args = parser.parse_args()
    if args.repeats < 1 or args.heads < 1 or min(args.batches) < 1:
        raise SystemExit("attention_kernel: --repeats, --heads and every batch must be at least 1")

    microseconds: dict[str, dict[str, float]] = {}
    for batch in args.batches:
        calls = kernel_calls(batch, args.heads, args.head_dim)
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(args.repeats):
            for name, call in calls.items():
                times[name].append(seconds_per_call(call, args.min_seconds))
        for name, values in times.items():
            microseconds.setdefault(name, {})[str(batch)] = round(statistics.median(values) * 1e6, 1)
    positions_per_s = {
        name: {batch: round(int(batch) / (us * 1e-6)) for batch, us in row.items()}
        for name, row in microseconds.items()
    }
    print(
        json.dumps(
            {
                "benchmark": "attention_kernel",
                "heads": args.heads,
                "head_dim": args.head_dim,
                "repeats": args.repeats,
                "units": {"microseconds": "per call (median over rounds)", "positions_per_s": "batch / time"},
                "microseconds": microseconds,
                "positions_per_s": positions_per_s,
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
