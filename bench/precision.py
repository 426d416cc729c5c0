"""bf16 matrix products against fp32 in CPU inference (popucom.infer.precision): ONE JSON line.

    python bench/precision.py --model weights/popucom-small-v9.pt [--games 400] [--visits 50] [--threads 2]

The same checkpoint twice through the torch backend, once with fp32 and once with bf16
operands in the sub-layers' matrix products:
  speed   network evaluations/s of each at batch 16, 32 and 192 on `threads` threads (the two
          interleaved round by round, medians of `repeats`), and their ratio;
  outputs over 1,024 positions from random play: the largest and mean absolute differences
          of the move probabilities and of the win/draw/loss probabilities, and how often the
          two pick the same top move;
  strength the two head to head at `visits`, colours swapped, komi 0, 2-ply random openings,
          `games` games: bf16's score with a 95% interval bootstrapped over openings.
Needs a CPU with bf16 arithmetic (AVX512-BF16 or AMX).
"""

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
from inference import rates  # bench/inference.py and bench/strength.py: this script's folder is on sys.path
from strength import head_to_head

from popucom.arena.match import make_openings, play_match
from popucom.arena.players import Player
from popucom.benchmarks import machine_info
from popucom.data.positions import random_features
from popucom.infer.precision import cpu_has_bf16
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn.checkpoint import load_network


def softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def output_differences(fp32: TorchEvaluator, bf16: TorchEvaluator, positions: int = 1024) -> dict:
    x = random_features(positions, seed=7, komi_range=5)
    a, b = fp32.run_all(x), bf16.run_all(x)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a training checkpoint (.pt)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--visits", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--batches", type=int, nargs="+", default=[16, 32, 192])
    args = parser.parse_args()
    if not cpu_has_bf16():
        raise SystemExit("this CPU has no bf16 arithmetic (AVX512-BF16 or AMX): nothing to compare")
    if args.games % 2:
        raise SystemExit("--games must be even (each opening is played with both colours)")
    net = load_network(args.model)
    evaluators = {
        "fp32": TorchEvaluator(net, threads=args.threads, cpu_matmul="fp32"),
        "bf16": TorchEvaluator(copy.deepcopy(net), threads=args.threads, cpu_matmul="bf16"),
    }
    speed = rates({name: e.run_all for name, e in evaluators.items()}, args.batches, args.repeats)
    outputs = output_differences(evaluators["fp32"], evaluators["bf16"])
    start = time.perf_counter()
    names = {k: f"{args.model.stem}@{args.visits},{k}" for k in evaluators}
    players = [
        Player(names[k], args.games, evaluator=e, visits=args.visits, seed=args.visits) for k, e in evaluators.items()
    ]
    records = play_match(*players, make_openings(args.games // 2, 2, 2026), progress=True, desc="fp32 vs bf16")
    strength = head_to_head(records, names["bf16"], names["fp32"])
    print(
        json.dumps(
            {
                "benchmark": "precision",
                "model": str(args.model),
                "threads": args.threads,
                "evals_per_s": speed,
                "bf16_speedup": {b: round(speed["bf16"][b] / speed["fp32"][b], 2) for b in speed["fp32"]},
                "outputs": outputs,
                "head_to_head": strength,
                "arena_seconds": round(time.perf_counter() - start),
                "torch": torch.__version__,
                "machine": machine_info(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
