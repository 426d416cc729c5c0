"""Strength and speed of the network-free yardsticks: seeded matches (random openings of 2 plies,
each played twice with colours swapped). One JSON line per pairing.

Usage: python bench/bots.py [--openings 100]
"""

import argparse
import json
import time

from popucom.arena.match import make_openings, play_match
from popucom.arena.ratings import game_results, gap
from popucom.benchmarks import machine_info
from popucom.player import Player

PAIRINGS = [("greedy", "random"), ("uct:200", "random"), ("uct:200", "greedy"), ("uct:2000", "uct:200")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--openings", type=int, default=100)
    args = parser.parse_args()
    for strong, weak in PAIRINGS:
        openings = make_openings(args.openings if strong != "uct:2000" else args.openings // 4, 2, seed=7)
        start = time.perf_counter()
        records = play_match(Player(strong, bot=strong, seed=1), Player(weak + "'", bot=weak, seed=2), openings)
        seconds = time.perf_counter() - start
        score = sum(r.score_for(strong) for r in records) / len(records)
        rating = gap(game_results(records), strong, weak + "'")
        print(
            json.dumps(
                {
                    "benchmark": "bots",
                    "player": strong,
                    "opponent": weak,
                    "games": len(records),
                    "score": round(score, 4),
                    "elo_gap": round(rating.elo),
                    "elo_95": [round(rating.low), round(rating.high)],
                    "games_per_s": round(len(records) / seconds, 2),
                    "machine": machine_info(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
