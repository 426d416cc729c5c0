"""The endgame solver's speed: positions visited and CPU seconds to solve positions with a
given number of plies left: ONE JSON line.

    python bench/solver.py [--plies 6 8 9 10] [--games 40] [--bot uct:200]
                           [--games-file GAMES.jsonl [--black NAME] [--white NAME] [--limit N]]

The positions are taken from games of BOT against itself after 2 random plies (seeded, so
every run solves the same positions), or from a games file (popucom.experiments.strength writes them),
PLIES before each game's end; --black / --white keep only the file's games with that player
on that side. Reported per horizon: the positions, their exact values (as a
string of + 0 -, so two builds can be checked to agree), the positions visited (each root and
every position the solver makes, the last ply's included, as its budget counts them) in all, the
median and the most for one position, the CPU seconds (process time, which other load on a
shared machine disturbs far less than wall time) with the median and the slowest position, and
positions visited per CPU second. Ten plies take about half a second a position.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from popucom import _core
from popucom.arena.match import read_records
from popucom.benchmarks import bot_game_moves, machine_info, position_before_end, solve_each


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plies", type=int, nargs="+", default=[6], help="plies left, e.g. 6 8 9 10")
    parser.add_argument("--games", type=int, default=40, help="bot games to take positions from")
    parser.add_argument("--bot", default="uct:200")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--games-file", type=Path, help="take the positions from these games instead")
    parser.add_argument("--black", help="only the file's games with this player as Black")
    parser.add_argument("--white", help="only the file's games with this player as White")
    parser.add_argument("--limit", type=int, help="at most this many games of the file (after --black/--white)")
    args = parser.parse_args()
    if args.games_file:
        records = [
            record
            for record in read_records(args.games_file)
            if args.black in (None, record.black) and args.white in (None, record.white)
        ]
        games = [_core.parse_record(record.moves) for record in records][: args.limit]
        source = f"{args.games_file} (Black {args.black or 'any'}, White {args.white or 'any'})"
    else:
        games = bot_game_moves(args.bot, args.games, args.seed)
        source = f"{args.games} games of {args.bot} against itself, seed {args.seed}"
    results = []
    for plies in args.plies:
        positions = [p for p in (position_before_end(moves, plies) for moves in games) if p is not None]
        results.append(solve_each(positions, plies))
    print(json.dumps({"benchmark": "solver", "source": source, "horizons": results, "machine": machine_info()}))


if __name__ == "__main__":
    main()
