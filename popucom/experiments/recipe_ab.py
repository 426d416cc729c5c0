"""A paired A/B of a training recipe at equal wall time: ONE JSON line.

    python -m popucom.experiments.recipe_ab --base runs/NAME --out runs/ab-NAME --minutes 70 \\
        --change replay_ratio=2.5 [--change KEY=VALUE ...] [--change-a KEY=VALUE ...] \\
        [--games 400] [--visits 50] [--seeds 7 11]

The design of docs/learning.md's A/Bs: the run is copied twice (its self-play shards hard-linked,
the rest copied, under the run's lock), and both copies continue side by side from the same
state with the same seed, one thread each, for --minutes of wall time (`popucom pipeline
--stop-after`); arm B takes the --change settings, arm A the --change-a ones (none: the run's own
recipe). Then B's newest model plays A's newest at --visits (colours swapped, komi 0), `games`
games on the openings of each seed in --seeds (popucom.experiments.strength), on both threads. Reported:
each arm's iterations and optimiser steps, the head-to-head of each seed, and B's score over all
of them with a 95% interval. Logs, the arms and the game records stay under --out.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from popucom.arena.ratings import elo_from_score, mean_and_se
from popucom.benchmarks import machine_info
from popucom.experiments.strength import strength_table
from popucom.pipeline.lock import RunLock
from popucom.run_layout import RunLayout

SHARED = ("selfplay",)  # written once, never changed in place: hard-linked, not copied
SKIPPED = ("pipeline.lock",)


def copy_run(base: Path, dest: Path) -> None:
    """dest: a copy of the run `base`, taken while holding its lock (no pipeline writes meanwhile)."""
    with RunLock(base / "pipeline.lock"):
        dest.mkdir(parents=True)
        for entry in sorted(base.iterdir()):
            if entry.name in SKIPPED or entry.name.startswith(".pipeline.lock."):
                continue
            target = dest / entry.name
            if entry.is_dir():
                shutil.copytree(entry, target, copy_function=os.link if entry.name in SHARED else shutil.copy2)
            else:
                shutil.copy2(entry, target)


def arm_command(run: Path, minutes: float, changes: list[str]) -> list[str]:
    command = [sys.executable, "-c", "import sys; from popucom.cli import main; sys.exit(main())"]
    command += ["pipeline", "--run-dir", str(run), "--threads", "1", "--stop-after", str(minutes)]
    command += ["--ladder-every", "100000"]  # the ladder's games would take the arms' time unevenly
    for change in changes:
        command += ["--change", change]
    return command


def newest_checkpoint(run: Path) -> Path:
    found = RunLayout(run).checkpoints()
    if not found:
        raise SystemExit(f"{run}: the arm wrote no checkpoint (see its log)")
    return found[-1]


def steps_of(run: Path) -> int:
    figures = RunLayout(run).all_train_figures()
    return int(json.loads(figures[-1].read_text()).get("step", 0)) if figures else 0


def run_arms(out: Path, minutes: float, changes: dict[str, list[str]]) -> None:
    """Both arms side by side; an arm that fails stops the other."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    processes = {}
    for arm, arm_changes in changes.items():
        log = open(out / f"{arm}.log", "w")  # noqa: SIM115 (closed with the process below)
        command = arm_command(out / arm, minutes, arm_changes)
        processes[arm] = (subprocess.Popen(command, stdout=log, stderr=log, env=env), log)
    try:
        while any(p.poll() is None for p, _ in processes.values()):
            failed = [arm for arm, (p, _) in processes.items() if p.poll() not in (None, 0)]
            if failed:
                raise SystemExit(f"arm {failed[0]} failed: see {out / failed[0]}.log")
            time.sleep(5)
    finally:
        for p, log in processes.values():
            if p.poll() is None:
                p.terminate()
                p.wait()
            log.close()
    failed = [arm for arm, (p, _) in processes.items() if p.returncode != 0]
    if failed:
        raise SystemExit(f"arm {failed[0]} failed: see {out / failed[0]}.log")


def head_to_head(out: Path, b: Path, a: Path, visits: int, games: int, seed: int) -> dict:
    """B's strength table against A alone (named "B", on both threads), on the openings of `seed`."""
    result = strength_table(
        b,
        [f"{visits}:{a}@visits={visits}:{games}"],
        name="B",
        threads=2,
        seed=seed,
        games_out=out / f"h2h-seed{seed}.jsonl",
    )
    pairing = result["pairings"][0]
    return {
        "seed": seed,
        **{k: pairing[k] for k in ("games", "wins", "draws", "losses", "score", "score_as_black", "score_as_white")},
        "score_95": result["head_to_head"][0]["score_95"],
    }


def pooled(results: list[dict]) -> dict:
    """B's score over every game, with a normal 95% interval from the per-game variance."""
    games = sum(r["games"] for r in results)
    points = [1.0] * sum(r["wins"] for r in results) + [0.5] * sum(r["draws"] for r in results)
    points += [0.0] * sum(r["losses"] for r in results)
    mean, se = mean_and_se(points)
    half = 1.96 * se if se is not None else 0.5
    elo = [round(elo_from_score(s, clamp=1e-3)) for s in (mean - half, mean, mean + half)]
    return {
        "games": games,
        "score": round(mean, 4),
        "score_95": [round(mean - half, 4), round(mean + half, 4)],
        "elo": elo[1],
        "elo_95": [elo[0], elo[2]],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the run both arms continue")
    parser.add_argument("--out", type=Path, required=True, help="a new folder for the arms, logs and games")
    parser.add_argument("--minutes", type=float, required=True, help="each arm's wall time")
    parser.add_argument("--change", action="append", default=[], metavar="KEY=VALUE", help="arm B's recipe change")
    parser.add_argument("--change-a", action="append", default=[], metavar="KEY=VALUE", help="arm A's, if any")
    parser.add_argument("--games", type=int, default=400, help="games per seed")
    parser.add_argument("--visits", type=int, default=50)
    parser.add_argument("--seeds", type=int, nargs="+", default=[7])
    args = parser.parse_args(argv)
    if not RunLayout(args.base).config.exists():
        raise SystemExit(f"--base {args.base}: not a run directory (no config.json)")
    if args.out.exists():
        raise SystemExit(f"--out {args.out} exists: name a new folder")
    if not args.change:
        raise SystemExit("--change: give arm B at least one recipe change (KEY=VALUE)")
    args.out.mkdir(parents=True)
    for arm in ("A", "B"):
        copy_run(args.base, args.out / arm)
    start = time.perf_counter()
    run_arms(args.out, args.minutes, {"A": args.change_a, "B": args.change})
    arms_seconds = time.perf_counter() - start
    arms = {name: newest_checkpoint(args.out / name) for name in ("A", "B")}
    a, b = arms["A"], arms["B"]
    results = [head_to_head(args.out, b, a, args.visits, args.games, seed) for seed in args.seeds]
    print(
        json.dumps(
            {
                "benchmark": "recipe_ab",
                "base": str(args.base),
                "minutes": args.minutes,
                "changes": {"A": args.change_a, "B": args.change},
                "arms": {name: {"newest": p.name, "steps": steps_of(args.out / name)} for name, p in arms.items()},
                "arms_seconds": round(arms_seconds),
                "head_to_head": results,
                "b_score": pooled(results),
                "machine": machine_info(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
