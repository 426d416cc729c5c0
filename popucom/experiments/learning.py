"""The learning benchmark: the CPU default pipeline from a fresh run directory for a
fixed budget, then the strength ladder over models spread across the budget.
One JSON line: the ladder rating of each checkpoint (Elo, 95% interval, anchor
random = 0), its wall-clock/CPU time and self-play positions; the curve is saved
as <run>/ladder/curve.png.

The budget counts this process's CPU time (`--budget cpu`, the fair measure when
variants share the machine, each on its own threads) or wall time (`--budget wall`).

Usage: python -m popucom.experiments.learning [--minutes 60] [--root-search puct|gumbel]
           [--warm-start GAMES] [--threads 2] [--run-dir DIR] [--points 4] [--ladder-visits 100]
           [--model KEY=VALUE ...]

--model changes the network of the preset (a ModelConfig field: bool, int or float), for
architecture ablations at equal budget, e.g. `--model mhc=true --label mhc` against the
preset as it is.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import tempfile
import time
from pathlib import Path

from popucom.arena.ladder import Ladder, LadderConfig, LadderPoint
from popucom.benchmarks import machine_info
from popucom.infer import load_evaluator
from popucom.nn.config import ModelConfig
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import pipeline_preset
from popucom.pipeline.warm_start import warm_start
from popucom.run_layout import RunLayout


def model_overrides(items: list[str]) -> dict[str, bool | int | float]:
    """`KEY=VALUE` settings of ModelConfig's bool, int and float fields, typed; ValueError naming
    a bad one."""
    kinds = {f.name: f.type if isinstance(f.type, str) else f.type.__name__ for f in dataclasses.fields(ModelConfig)}
    settable = sorted(name for name, kind in kinds.items() if kind in ("bool", "int", "float"))
    out: dict[str, bool | int | float] = {}
    for item in items:
        key, _, text = item.partition("=")
        if key not in settable or not text:
            raise ValueError(f"bad --model '{item}': want KEY=VALUE with KEY one of {', '.join(settable)}")
        try:
            if kinds[key] == "bool":
                if text.lower() not in ("true", "false"):
                    raise ValueError
                out[key] = text.lower() == "true"
            else:
                out[key] = int(text) if kinds[key] == "int" else float(text)
        except ValueError:
            raise ValueError(f"bad --model '{item}': {text!r} is not a {kinds[key]}") from None
    return out


def clock(kind: str) -> float:
    return time.process_time() if kind == "cpu" else time.perf_counter()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="budget for warm start + pipeline")
    parser.add_argument("--budget", choices=("cpu", "wall"), default="wall")
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--root-search", choices=("puct", "gumbel"), default=None)
    parser.add_argument("--warm-start", type=int, default=0, metavar="GAMES", help="uct bot games first (0: none)")
    parser.add_argument("--warm-bot", default="uct:1000")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument("--points", type=int, default=4, help="ladder points spread over the budget (+ model 0)")
    parser.add_argument("--ladder-visits", type=int, default=100)
    parser.add_argument("--ladder-games", type=int, default=64)
    parser.add_argument("--label", default="")
    parser.add_argument("--model", action="append", default=[], metavar="KEY=VALUE", help="network setting")
    args = parser.parse_args(argv)
    # The ladder (None) runs after the budget, not inside it.
    try:
        overrides = model_overrides(args.model)
        config = pipeline_preset(args.preset, seed=args.seed, inference_threads=args.threads, ladder=None)
        config = dataclasses.replace(config, model=dataclasses.replace(config.model, **overrides))
    except ValueError as e:  # a bad KEY=VALUE, or a network the config refuses (d_model not a multiple of heads)
        raise SystemExit(f"learning: {e}") from None

    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    run = args.run_dir or Path(tempfile.mkdtemp(prefix="popucom-learning-"))
    run.mkdir(parents=True, exist_ok=True)
    if args.root_search:
        selfplay = dataclasses.replace(config.selfplay, root_search=args.root_search)
        config = dataclasses.replace(config, selfplay=selfplay)
    # The pipeline's and the ladder's progress lines (popucom.* loggers) and ours, timestamped.
    log_file = logging.FileHandler(run / "learning.log")
    log_file.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    logging.getLogger("popucom").addHandler(log_file)
    logging.getLogger("popucom").setLevel(logging.INFO)
    log = logging.getLogger(__name__).info

    budget = args.minutes * 60
    progress_path = run / "learning_progress.jsonl"
    history = [json.loads(line) for line in progress_path.read_text().splitlines()] if progress_path.exists() else []
    spent_wall = history[-1]["wall_s"] if history else 0.0
    spent_cpu = history[-1]["cpu_s"] if history else 0.0
    start_wall, start_cpu = time.perf_counter(), time.process_time()

    def spent() -> tuple[float, float]:
        return spent_wall + time.perf_counter() - start_wall, spent_cpu + time.process_time() - start_cpu

    warm = None
    if args.warm_start and not history:
        warm = warm_start(run, config, bot=args.warm_bot, games=args.warm_start, seed=args.seed)
    k = history[-1]["iteration"] if history else 0
    if not history:
        history.append({"iteration": 0, "wall_s": spent()[0], "cpu_s": spent()[1], "positions": 0})
        progress_path.write_text(json.dumps(history[-1]) + "\n")
    while (spent()[1] if args.budget == "cpu" else spent()[0]) < budget:
        k += 1
        run_pipeline(run, config, iterations=k, progress=False)
        metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
        positions = sum(m.get("selfplay", {}).get("positions", 0) for m in metrics if m["iteration"] <= k)
        wall, cpu = spent()
        history.append({"iteration": k, "wall_s": wall, "cpu_s": cpu, "positions": positions})
        with open(progress_path, "a") as f:
            f.write(json.dumps(history[-1]) + "\n")
        log(f"benchmark: iteration {k} done at {wall / 60:.1f} wall min, {cpu / 60:.1f} CPU min")

    # Ladder points spread evenly over the budget actually used, plus the initial model.
    key = "cpu_s" if args.budget == "cpu" else "wall_s"
    targets = [history[-1][key] * (i + 1) / args.points for i in range(args.points)]
    chosen = sorted({0} | {min(history, key=lambda h: abs(h[key] - t))["iteration"] for t in targets})
    layout = RunLayout(run)
    ladder = Ladder(
        layout.ladder, LadderConfig(visits=args.ladder_visits, games=args.ladder_games, threads=args.threads)
    )
    ladder_start = time.perf_counter()
    for h in history:
        if h["iteration"] not in chosen:
            continue
        name = layout.model_name(h["iteration"])
        # the checkpoint through the torch backend: faster than ONNX Runtime at these batch sizes on
        # a CPU (docs/benchmarks.md, "Inference backends")
        model = layout.checkpoint(h["iteration"])
        ladder.play_point(
            LadderPoint(name, h["iteration"], h["wall_s"] / 3600, h["positions"], {"cpu_hours": h["cpu_s"] / 3600}),
            lambda model=model: load_evaluator(model, threads=args.threads),
        )
    ratings = ladder.refit()
    label = (
        args.label or f"{config.selfplay.root_search}{' warm' if warm else ''}{''.join(f' {m}' for m in args.model)}"
    )
    ladder.plot(ratings, title=f"learning benchmark: {label}, {args.minutes:g} {args.budget} minutes")
    points = []
    for p in ladder.points():
        r = ratings[p.model]
        points.append(
            {
                "model": p.model,
                "iteration": p.iteration,
                "wall_hours": round(p.wall_hours, 3),
                "cpu_hours": round(p.extra.get("cpu_hours", 0.0), 3),
                "positions": p.positions,
                "elo": round(r.elo),
                "low": round(r.low),
                "high": round(r.high),
            }
        )
    opponents = {name: round(ratings[name].elo) for name in ladder.config.opponents if name in ratings}
    print(
        json.dumps(
            {
                "benchmark": "learning",
                "label": label,
                "budget_minutes": args.minutes,
                "budget_kind": args.budget,
                "root_search": config.selfplay.root_search,
                "model_overrides": overrides,
                "warm_start": warm,
                "threads": args.threads,
                "iterations": history[-1]["iteration"],
                "positions": history[-1]["positions"],
                "ladder_visits": args.ladder_visits,
                "ladder_games_per_opponent": args.ladder_games,
                "ladder_seconds": round(time.perf_counter() - ladder_start),
                "opponents_elo": opponents,
                "points": points,
                "curve": str(run / "ladder" / "curve.png"),
                "run_dir": str(run),
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
