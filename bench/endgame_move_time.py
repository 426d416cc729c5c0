"""What the endgame solve costs the GUI's AI: its move time over whole games with two (or more)
search settings, through the GameSearch the GUI uses, with the GUI's thread budget. One JSON line.

Each recorded game (the arena's games.jsonl) is replayed move by move as two GUI games, the AI
playing Black in one and White in the other: at each of its positions the AI of each setting
searches `--visits` (the GUI's 800; the tree kept from its previous move counts, as in the GUI),
chooses its move (the endgame solve included), and the recorded move is played. Every setting
thinks about the same positions, one after the other at each position, so shared machine noise
falls on all of them alike. The line gives, per setting, the AI's seconds per game (both
colours, median over games), per move (mean, 90th percentile, slowest) and over the last 12
plies, and each setting's per-game time as a ratio of the first's (median of the per-game
ratios).

Usage: python bench/endgame_move_time.py GAMES.jsonl [--games 8] [--visits 800]
           [--model weights/popucom-small-v11.onnx] [--settings endgame_solve_plies=6 endgame_solve_plies=10,...]
           [--table-mb 0 256]   (each setting's kept solver table; 0: each move solves with its own)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

LAST_PLIES = 12  # the plies where an endgame solve can run at all


def time_games(
    model: Path, records: list, visits: int, settings: list[str], threads: int, table_mb: list[float]
) -> list[dict]:
    from popucom import _core
    from popucom.player import Player
    from popucom.player_spec import PlayerSpec, load_evaluator

    specs = [PlayerSpec.parse(f"{model}@visits={visits}" + (f",{s}" if s else "")) for s in settings]
    evaluator = load_evaluator(specs[0], "cpu", threads)
    # One GUI game per colour and setting: sessions[setting][colour].
    sessions = [
        [Player.from_spec(s, evaluator=evaluator).session(threads=1, endgame_table_mb=mb) for _ in range(2)]
        for s, mb in zip(specs, table_mb)
    ]
    per_game = [[] for _ in settings]  # seconds per game, per setting
    per_move = [[] for _ in settings]
    last = [[] for _ in settings]  # seconds over the last LAST_PLIES plies, per game
    for record in records:
        game = _core.Game(record.komi)
        spent = [0.0] * len(settings)
        spent_last = [0.0] * len(settings)
        for move in _core.parse_record(record.moves):
            colour = 0 if game.position.to_move == _core.Color.BLACK else 1
            for i, pair in enumerate(sessions):
                session = pair[colour]
                start = time.perf_counter()
                session.set_position(game.position)
                session.move_to_play(session.search(visits=visits))
                seconds = time.perf_counter() - start
                spent[i] += seconds
                per_move[i].append(seconds)
                if sum(game.position.moves_left) <= LAST_PLIES:
                    spent_last[i] += seconds
            for pair in sessions:  # each session is told every move, so its tree is kept
                for session in pair:
                    session.follow(game.position, move)
            game.play(move)
        for i in range(len(settings)):
            per_game[i].append(spent[i])
            last[i].append(spent_last[i])
    return [
        {
            "settings": setting or "play defaults",
            "endgame_table_mb": table_mb[i],
            "game_s": round(statistics.median(per_game[i]), 3),
            "last_plies_s": round(statistics.median(last[i]), 3),
            "move_mean_s": round(statistics.mean(per_move[i]), 4),
            "move_p90_s": round(statistics.quantiles(per_move[i], n=10, method="inclusive")[-1], 4),
            "move_max_s": round(max(per_move[i]), 4),
            "game_ratio": round(statistics.median(t / f for t, f in zip(per_game[i], per_game[0])), 3),
        }
        for i, setting in enumerate(settings)
    ]


def main() -> None:
    from popucom.arena.match import read_records
    from popucom.benchmarks import machine_info
    from popucom.search.game_search import DEFAULT_ENDGAME_TABLE_MB
    from popucom.weights import newest_for_cpu

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", type=Path)
    parser.add_argument("--games", type=int, default=8, help="the first this many games of the file")
    parser.add_argument("--visits", type=int, default=800, help="visits a move (default: the GUI's 800)")
    parser.add_argument("--model", type=Path, help="default: the newest shipped model")
    parser.add_argument(
        "--threads", type=int, default=max(1, min(4, os.cpu_count() or 1)), help="network threads (the GUI's)"
    )
    parser.add_argument(
        "--settings", nargs="+", default=["", "endgame_solve_plies=10"], help="KEY=VALUE,... ('' = play defaults)"
    )
    parser.add_argument(
        "--table-mb",
        type=float,
        nargs="+",
        metavar="MB",
        help="each setting's kept solver table in MB, one per setting (0: a table of its own per move; "
        "default: the session's)",
    )
    args = parser.parse_args()
    table_mb = args.table_mb or [DEFAULT_ENDGAME_TABLE_MB] * len(args.settings)
    if len(table_mb) != len(args.settings):
        raise SystemExit("endgame_move_time: --table-mb needs one value per setting")
    model = args.model or newest_for_cpu()
    try:
        records = read_records(args.games_file)[: args.games]
    except (OSError, ValueError) as e:
        raise SystemExit(f"endgame_move_time: {e}") from None
    if not records:
        raise SystemExit(f"endgame_move_time: no game in {args.games_file}")
    started = time.perf_counter()
    line = {
        "bench": "endgame_move_time",
        "model": Path(model).name,
        "games": len(records),
        "visits": args.visits,
        "network_threads": args.threads,
        "search_threads": 1,
        "settings": time_games(model, records, args.visits, args.settings, args.threads, table_mb),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(line | {"machine": machine_info()}))


if __name__ == "__main__":
    main()
