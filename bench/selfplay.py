"""Self-play throughput per backend: positions/s, games/s, NN evals/s, mean batch,
and the share of wall time inside the network call. One JSON line per backend.

Usage: python bench/selfplay.py [--preset small | --model CKPT.pt] [--games 64] [--backends auto openvino torch]
On a GPU machine: python bench/selfplay.py --preset base --device cuda --backends torch trt
Backends as popucom.infer.factory names them: native and torch run the checkpoint, openvino,
onnx and trt its exported model, auto the checkpoint with the exported model beside it (as the
pipeline does); each line names the path that ran.
"""

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

import torch

from popucom import _core
from popucom.benchmarks import machine_info
from popucom.infer import load_evaluator
from popucom.infer.factory import EXPORTED_BACKENDS
from popucom.nn import preset
from popucom.nn.checkpoint import load_network
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
    parser.add_argument("--backends", nargs="+", default=["auto", "torch"])
    parser.add_argument("--model", type=Path, help="a trained checkpoint (.pt), not an untrained --preset")
    args = parser.parse_args()

    torch.manual_seed(0)
    tmp = Path(tempfile.mkdtemp(prefix="popucom-bench-"))
    if args.model:
        net = load_network(args.model).eval()
        checkpoint = Path(shutil.copy(args.model, tmp / "model.pt"))
    else:
        trainer = Trainer(preset(args.preset))
        net = trainer.model.eval()
        checkpoint = trainer.save(tmp / "model.pt")
    onnx_path = export_onnx(net, tmp / "model.onnx")  # beside the checkpoint, as the shipped weights
    config = SelfPlayConfig(
        concurrent_games=args.concurrent,
        full_visits=args.full_visits,
        fast_visits=args.fast_visits,
        games_per_chunk=10_000,
        search_threads=args.search_threads,
    ).with_search(leaves_per_game=args.leaves_per_game)
    for backend in args.backends:
        try:
            model = onnx_path if backend in EXPORTED_BACKENDS else checkpoint
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
                    "ran": evaluator.describe() if hasattr(evaluator, "describe") else backend,
                    "device": args.device,
                    "preset": net.config.preset,
                    "model": str(args.model) if args.model else None,
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
                    "cpu_level": _core.cpu_level(),
                    "machine": machine_info(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
