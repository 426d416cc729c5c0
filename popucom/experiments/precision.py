"""Two CPU inference paths of one checkpoint against each other: precision (bf16 against fp32,
popucom.infer.precision) or backend (OpenVINO or the native forward against torch). ONE JSON line.

    python -m popucom.experiments.precision --model weights/popucom-small-v9.pt [--pair fp32 bf16]
        [--games 400] [--visits 50] [--threads 2]

The same checkpoint twice, through two of these paths (--pair A B, B is the one scored):
  fp32           the torch backend, fp32 everywhere
  bf16-products  the torch backend with bf16 operands in the sub-layers' matrix products, the rest fp32
  bf16           that, and the attention kernel's logits and value sums as bf16 dot products
                 (AVX512-BF16; csrc/nn/pope_attention_dots.cpp), through torch
  native         the same arithmetic as the whole network in one C++ call (the native backend):
                 what `auto` runs where the CPU has AVX512-BF16
  native-fp32    the native backend in fp32 products (every CPU: its widest kernels)
  openvino       the openvino backend (fp32) on the checkpoint exported to ONNX: what `auto` runs
                 for a network the native forward does not serve
Reported:
  speed   network evaluations/s of each at batch 16, 32 and 192 on `threads` threads (the two
          interleaved round by round, medians of `repeats`), and their ratio;
  outputs over 1,024 positions from random play: the largest and mean absolute differences
          of the move probabilities and of the win/draw/loss probabilities, and how often the
          two pick the same top move;
  strength the two head to head at `visits`, colours swapped, komi 0, 2-ply random openings,
          `games` games: B's score with a 95% interval bootstrapped over openings.
A pair with a bf16 path needs a CPU with bf16 arithmetic (AVX512-BF16 or AMX).
"""

from __future__ import annotations

import argparse
import copy
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from popucom import _core
from popucom.arena.match import make_openings, play_match
from popucom.benchmarks import evaluations_per_s, machine_info
from popucom.data.positions import random_features
from popucom.experiments.strength import head_to_head
from popucom.infer.contract import Evaluator
from popucom.infer.native_backend import NativeEvaluator
from popucom.infer.openvino_backend import OpenVinoEvaluator
from popucom.infer.precision import cpu_has_bf16
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn.checkpoint import load_network
from popucom.nn.export import export_onnx
from popucom.player import Player


def softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def output_differences(first: Evaluator, second: Evaluator, positions: int = 1024) -> dict:
    x = random_features(positions, seed=7, komi_range=5)
    a, b = first.run_all(x), second.run_all(x)
    policy_a, policy_b = softmax(a["policy_logits"]), softmax(b["policy_logits"])
    policy, wdl = np.abs(policy_a - policy_b), np.abs(a["wdl"] - b["wdl"])
    return {
        "positions": positions,
        "policy_max_abs": round(float(policy.max()), 4),
        "policy_mean_abs": round(float(policy.mean()), 6),
        "wdl_max_abs": round(float(wdl.max()), 4),
        "wdl_mean_abs": round(float(wdl.mean()), 5),
        "same_top_move": round(float((policy_a.argmax(1) == policy_b.argmax(1)).mean()), 4),
    }


# torch paths: name -> (cpu_matmul, the attention kernel's dot products)
TORCH_PRECISIONS = {
    "fp32": ("fp32", torch.float32),
    "bf16-products": ("bf16", torch.float32),
    "bf16": ("bf16", torch.bfloat16),
}
NATIVE_PRECISIONS = {"native": "bf16", "native-fp32": "fp32"}
PATHS = (*TORCH_PRECISIONS, *NATIVE_PRECISIONS, "openvino")
BF16_PATHS = ("bf16-products", "bf16", "native")


def evaluator(net: torch.nn.Module, path: str, threads: int, workdir: Path) -> Evaluator:
    """`net` through one of PATHS (an OpenVINO path exports it to `workdir` first)."""
    if path == "openvino":
        return OpenVinoEvaluator(export_onnx(net, workdir / "model.onnx"), threads=threads)
    if path in NATIVE_PRECISIONS:
        return NativeEvaluator.of_network(net, threads=threads, cpu_matmul=NATIVE_PRECISIONS[path])
    matmul, dots = TORCH_PRECISIONS[path]
    made = TorchEvaluator(net, threads=threads, cpu_matmul=matmul)
    net.set_inference_matmul_dtype(made.matmul_dtype, attention_dots=dots)
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a training checkpoint (.pt)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--visits", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--batches", type=int, nargs="+", default=[16, 32, 192])
    parser.add_argument("--pair", nargs=2, choices=PATHS, default=["fp32", "bf16"], metavar="PATH")
    args = parser.parse_args(argv)
    if set(args.pair) & set(BF16_PATHS) and not cpu_has_bf16():
        raise SystemExit("this CPU has no bf16 arithmetic (AVX512-BF16 or AMX): a bf16 path cannot run here")
    if args.games % 2:
        raise SystemExit("--games must be even (each opening is played with both colours)")
    first, second = args.pair
    if first == second:
        raise SystemExit("--pair: name two different paths")
    net = load_network(args.model)
    workdir = Path(tempfile.mkdtemp(prefix="popucom-precision-"))
    evaluators = {name: evaluator(copy.deepcopy(net), name, args.threads, workdir) for name in (first, second)}
    speed = evaluations_per_s({name: e.run_all for name, e in evaluators.items()}, args.batches, args.repeats)
    outputs = output_differences(evaluators[first], evaluators[second])
    start = time.perf_counter()
    names = {k: f"{args.model.stem}@{args.visits},{k}" for k in evaluators}
    players = [Player(names[k], evaluator=e, visits=args.visits, seed=args.visits) for k, e in evaluators.items()]
    records = play_match(*players, make_openings(args.games // 2, 2, 2026), progress=True, desc=f"{first} vs {second}")
    strength = head_to_head(records, names[second], names[first])
    print(
        json.dumps(
            {
                "benchmark": "precision",
                "model": str(args.model),
                "threads": args.threads,
                "pair": args.pair,
                "evals_per_s": speed,
                "speedup": {b: round(speed[second][b] / speed[first][b], 2) for b in speed[first]},
                "outputs": outputs,
                "head_to_head": strength,
                "arena_seconds": round(time.perf_counter() - start),
                "torch": torch.__version__,
                "cpu_level": _core.cpu_level(),
                "machine": machine_info(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
