"""What self-play says about the game: Black's score at komi 0 and the komi that balances it,
with bootstrap 95% intervals, from a run's newest self-play game records.

A game that ran out of moves is re-scored at komi k from its raw floor difference
(Black wins when diff + k > 0, a draw at 0); a no-legal-move win stands at every komi.
Re-scoring assumes the players would have played the same moves at another komi, which
holds only roughly (self-play already samples komi around the fair value).

Usage: python -m popucom.experiments.balance RUN_DIR [--games 2000] [--boot 2000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from popucom.benchmarks import machine_info


def black_score(diffs: np.ndarray, black_nlm: np.ndarray, white_nlm: np.ndarray, komi: float) -> float:
    """Black's mean score (win 1, draw 1/2) over the games at this komi."""
    by_floors = np.where(diffs + komi > 0, 1.0, np.where(diffs + komi == 0, 0.5, 0.0))
    score = np.where(black_nlm, 1.0, np.where(white_nlm, 0.0, by_floors))
    return float(score.mean())


def balancing_komi(diffs: np.ndarray, black_nlm: np.ndarray, white_nlm: np.ndarray) -> float:
    """The komi (in half points, by interpolation) at which Black's score crosses 1/2."""
    ks = np.arange(-40, 41)
    scores = np.array([black_score(diffs, black_nlm, white_nlm, float(k)) for k in ks])
    above = np.flatnonzero(scores >= 0.5)
    if len(above) == 0:
        return float(ks[-1])
    i = above[0]
    if i == 0:
        return float(ks[0])
    lo, hi = scores[i - 1], scores[i]
    return float(ks[i - 1] + (0.5 - lo) / (hi - lo)) if hi > lo else float(ks[i])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--games", type=int, default=2000, help="the newest this many games")
    parser.add_argument("--boot", type=int, default=2000)
    args = parser.parse_args(argv)
    files = sorted((args.run_dir / "selfplay").glob("*.games.jsonl"))
    games = [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]
    games = games[-args.games :]
    if not games:
        raise SystemExit(f"no self-play game records under {args.run_dir / 'selfplay'}")
    floors = np.array([g["end"] == "moves_exhausted" for g in games])
    diffs = np.array([g["score"] for g in games], dtype=float)
    black_nlm = np.array([g["end"] == "no_legal_move" and g["result"] == "black" for g in games])
    white_nlm = np.array([g["end"] == "no_legal_move" and g["result"] == "white" for g in games])
    rng = np.random.default_rng(0)
    at_zero, komi = [], []
    for _ in range(args.boot):
        pick = rng.integers(0, len(games), len(games))
        at_zero.append(black_score(diffs[pick], black_nlm[pick], white_nlm[pick], 0))
        komi.append(balancing_komi(diffs[pick], black_nlm[pick], white_nlm[pick]))
    models = sorted({g.get("black", "") for g in games})
    print(
        json.dumps(
            {
                "benchmark": "balance",
                "run": str(args.run_dir),
                "games": len(games),
                "models": [models[0], models[-1]],
                "black_score_at_komi_0": round(black_score(diffs, black_nlm, white_nlm, 0), 3),
                "black_score_at_komi_0_95": [round(float(np.percentile(at_zero, q)), 3) for q in (2.5, 97.5)],
                "balancing_komi": round(balancing_komi(diffs, black_nlm, white_nlm), 2),
                "balancing_komi_95": [round(float(np.percentile(komi, q)), 2) for q in (2.5, 97.5)],
                "no_legal_move_share": round(float((~floors).mean()), 3),
                "mean_raw_diff": round(float(diffs[floors].mean()), 2) if floors.any() else None,
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
