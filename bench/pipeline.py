"""The main job's first iteration on this machine: `popucom pipeline --preset cpu --iterations 1`
in a fresh run directory, its warm start included. One JSON line: wall time per stage (the
warm start's bot games and training apart) and the self-play figures.

Usage: python bench/pipeline.py [--preset cpu] [--backend torch]
"""

import argparse
import dataclasses
import json
import tempfile
import time
from pathlib import Path

from popucom.benchmarks import machine_info
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import pipeline_preset
from popucom.pipeline.warm_start import SUMMARY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--backend")
    args = parser.parse_args()
    run = Path(tempfile.mkdtemp(prefix="popucom-pipeline-bench-"))
    config = pipeline_preset(args.preset, **({"backend": args.backend} if args.backend else {}))
    # The first model plays the evaluation here, whatever the preset's schedule.
    config = dataclasses.replace(config, evaluation=dataclasses.replace(config.evaluation, every=1))
    start = time.perf_counter()
    run_pipeline(run, config, iterations=1, progress=False)
    wall = time.perf_counter() - start
    metrics = json.loads((run / "metrics.jsonl").read_text().splitlines()[0])
    warm = json.loads((run / "warm_start" / SUMMARY).read_text()) if config.warm_start else {}
    sp = metrics["selfplay"]
    print(
        json.dumps(
            {
                "benchmark": "pipeline_first_iteration",
                "preset": args.preset,
                "backend": config.backend,
                "wall_seconds": round(wall, 1),
                "warm_start_games_s": round(warm.get("games_s", 0.0), 1),
                "warm_start_train_s": round(warm.get("seconds", 0.0) - warm.get("games_s", 0.0), 1),
                "warm_start_games": warm.get("games", 0),
                "warm_start_steps": warm.get("steps", 0),
                **{k: round(metrics[k], 1) for k in ("selfplay_s", "train_s", "export_s", "evaluate_s")},
                "selfplay_games": sp["games"],
                "nn_evals_per_s": round(sp["nn_evals_per_s"]),
                "network_share": round(sp["eval_share"], 4),
                "training_steps": metrics["train"].get("step"),
                "vs_initial_model": metrics["evaluation"]["vs_previous"],
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
