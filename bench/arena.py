"""Arena throughput: games per second for two `small` models at 100 visits on this CPU.

Usage: python bench/arena.py [--openings 4] [--visits 100] [--preset small]
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import torch

from popucom.arena.match import make_openings, play_match
from popucom.benchmarks import machine_info
from popucom.infer.onnx_backend import OnnxEvaluator
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx
from popucom.player import Player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small")
    parser.add_argument("--openings", type=int, default=4)
    parser.add_argument("--visits", type=int, default=100)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="popucom-arena-bench-"))
    paths = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        paths.append(export_onnx(PopucomNet(preset(args.preset)).eval(), tmp / f"m{seed}.onnx"))
    openings = make_openings(args.openings, 4, seed=0)
    n = 2 * len(openings)
    a = Player("m0", evaluator=OnnxEvaluator(paths[0], threads=args.threads), visits=args.visits, seed=0)
    b = Player("m1", evaluator=OnnxEvaluator(paths[1], threads=args.threads), visits=args.visits, seed=1)
    start = time.perf_counter()
    records = play_match(a, b, openings)
    seconds = time.perf_counter() - start
    moves = sum(len(r.moves.split()) - r.opening_plies for r in records)
    evals = a.many_games(n).timings.leaves + b.many_games(n).timings.leaves
    print(
        json.dumps(
            {
                "benchmark": "arena",
                "preset": args.preset,
                "visits": args.visits,
                "games": len(records),
                "games_per_s": round(len(records) / seconds, 4),
                "moves_per_s": round(moves / seconds, 2),
                "nn_evals_per_s": round(evals / seconds),
                "seconds": round(seconds, 1),
                "mean_batch": round(
                    (a.many_games(n).timings.leaves + b.many_games(n).timings.leaves)
                    / max(1, a.many_games(n).timings.steps + b.many_games(n).timings.steps),
                    1,
                ),
                "threads": args.threads,
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
