"""Self-play throughput per backend: positions/s, games/s, NN evals/s, mean batch,
and the share of wall time inside the network call. One JSON line per backend.

Usage: python bench/selfplay.py [--preset small] [--games 64] [--backends onnx torch trt]
On a GPU machine: python bench/selfplay.py --preset base --device cuda --backends torch trt
"""

import argparse
import json
import os
import tempfile
from pathlib import Path

import torch

from popucom.benchmarks import machine_info
from popucom.infer import load_evaluator
from popucom.nn import preset
from popucom.nn.export import export_onnx
from popucom.selfplay import KomiSampler, SelfPlayConfig, run_selfplay
from popucom.train import Trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small")
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--concurrent", type=int, default=64)
    parser.add_argument("--full-visits", type=int, default=48)
    parser.add_argument("--fast-visits", type=int, default=12)
    parser.add_argument("--leaves-per-game", type=int, default=4)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--search-threads", type=int, default=1, help="C++ search threads (a GPU box has cores)")
    parser.add_argument("--backends", nargs="+", default=["onnx", "torch"])
    args = parser.parse_args()

    torch.manual_seed(0)
    trainer = Trainer(preset(args.preset))
    net = trainer.model.eval()
    tmp = Path(tempfile.mkdtemp(prefix="popucom-bench-"))
    checkpoint = trainer.save(tmp / "model.pt")
    onnx_path = export_onnx(net, tmp / "model.onnx")
    config = SelfPlayConfig(
        concurrent_games=args.concurrent,
        full_visits=args.full_visits,
        fast_visits=args.fast_visits,
        games_per_chunk=10_000,
        search_threads=args.search_threads,
    ).with_search(leaves_per_game=args.leaves_per_game)
    for backend in args.backends:
        try:
            model = checkpoint if backend == "torch" else onnx_path
            evaluator = load_evaluator(
                model,
                backend=backend,
                device=args.device,
                threads=args.threads,
                engine_cache=tmp / "engines",
                max_batch=4096,
            )
        except (RuntimeError, ImportError, ValueError) as e:
            print(json.dumps({"benchmark": "selfplay", "backend": backend, "skipped": str(e)}), flush=True)
            continue
        stats = run_selfplay(
            evaluator, config, tmp / backend, "bench", args.games, KomiSampler(), progress=False, seed=1
        )
        s = stats.summary()
        print(
            json.dumps(
                {
                    "benchmark": "selfplay",
                    "backend": backend,
                    "device": args.device,
                    "preset": args.preset,
                    "parameters": net.num_parameters(),
                    "games": s["games"],
                    "games_per_s": round(s["games_per_s"], 3),
                    "positions_per_s": round(s["positions_per_s"], 1),
                    "moves_per_s": round(s["moves_per_s"], 1),
                    "nn_evals_per_s": round(s["nn_evals_per_s"]),
                    "mean_batch": round(s["mean_batch"], 1),
                    "max_batch": s["max_batch"],
                    "network_share_of_wall_time": round(s["eval_share"], 4),
                    "cache_hit_rate": round(s["cache_hit_rate"], 4),
                    "seconds": round(s["seconds"], 1),
                    "visits": [args.full_visits, args.fast_visits],
                    "threads": args.threads,
                    "search_threads": args.search_threads,
                    "machine": machine_info(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
