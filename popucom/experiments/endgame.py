"""What exact endgame play would have changed in games played without it: ONE JSON line.

    python -m popucom.experiments.endgame GAMES.jsonl --player NAME [--opponent NAME] [--plies 6]
    python -m popucom.experiments.endgame SELFPLAY/*.games.jsonl --outcomes [--plies 6 4 2]

For every game of PLAYER (against OPPONENT, if given), each of its moves with PLIES or fewer
plies left is checked by the solver (`_core.solve` on every legal move). At the first move
whose exact result is worse than the best one (where the search's endgame_solve_plies would
switch), the game's final result is compared with that best exact value: below it, exact play
would have done better (it guarantees that value against any reply); above it, the opponent
erred after the inexact move, and exact play might have done worse. Deterministic, and far less
noisy than replaying the games with the setting on: only the games it touches count.

With --outcomes (any game files, self-play's included): the share of games that ran out of moves
whose result differs from the exact value of their position PLIES plies from the end, i.e. how
many value targets an endgame blunder after that point turned.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from popucom import _core
from popucom.arena.match import GameRecord, read_records
from popucom.benchmarks import machine_info

RESULT_VALUE = {1.0: 1, 0.5: 0, 0.0: -1}  # a player's game score as a win/draw/loss value


def first_inexact_move(record: GameRecord, player: str, plies: int) -> int | None:
    """The best exact value (+1/0/-1, player's side) at PLAYER's first move in the last PLIES
    plies whose exact value was below it, or None if every such move was exact."""
    player_colour = _core.Color.BLACK if record.black == player else _core.Color.WHITE
    position = _core.Position()
    # By the plies left, not the record's last moves: a game can end early (no legal move).
    for move in _core.parse_record(record.moves):
        if position.to_move == player_colour and sum(position.moves_left) <= plies:
            exact = {m: -_core.solve(position.play(m), plies) for m in position.legal_moves()}
            best = max(exact.values())
            if exact[move] < best:
                return best
        position = position.play(move)
    return None


def check_games(records: list[GameRecord], player: str, opponent: str | None, plies: int) -> dict:
    games = [
        r
        for r in records
        if player in (r.black, r.white) and (opponent is None or opponent in (r.black, r.white)) and r.black != r.white
    ]
    switched = better = worse = 0
    for record in games:
        best = first_inexact_move(record, player, plies)
        if best is None:
            continue
        final = RESULT_VALUE[record.score_for(player)]
        switched += 1
        better += final < best
        worse += final > best
    return {"games": len(games), "switched": switched, "better": better, "worse_at_most": worse}


RESULT_FOR_BLACK = {"black": 1, "draw": 0, "white": -1}


def read_outcome_records(paths: list[Path]) -> list[dict]:
    """Games of any producer (self-play names one model for both colours, which the arena's
    reader refuses), each with its moves, komi, result and end; ValueError naming a bad line."""
    records = []
    for path in paths:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                game = {k: record[k] for k in ("moves", "komi", "result", "end")}
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise ValueError(f"{path}:{number}: not a game record ({e!r})") from None
            if game["result"] not in RESULT_FOR_BLACK:
                expected = ", ".join(RESULT_FOR_BLACK)
                raise ValueError(f"{path}:{number}: result {game['result']!r:.40} is not one of {expected}")
            records.append(game)
    return records


def outcomes_against_exact(records: list[dict], plies: list[int]) -> dict:
    """Per PLIES: games that ran out of moves, and how many ended otherwise than the exact value
    of their position PLIES plies from the end."""
    exhausted = [r for r in records if r["end"] == "moves_exhausted"]
    differ = dict.fromkeys(plies, 0)
    for record in exhausted:
        positions = _core.Game.from_record(record["moves"], komi=record["komi"]).positions()
        for n in plies:
            position = positions[-1 - n]
            sign = 1 if position.to_move == _core.Color.BLACK else -1
            differ[n] += sign * _core.solve(position, n) != RESULT_FOR_BLACK[record["result"]]
    return {
        "games": len(exhausted),
        "differ": {str(n): differ[n] for n in plies},
        "differ_share": {str(n): round(differ[n] / max(len(exhausted), 1), 4) for n in plies},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--player", help="whose moves to check (required without --outcomes)")
    parser.add_argument("--opponent")
    parser.add_argument("--outcomes", action="store_true", help="results against exact values (see above)")
    parser.add_argument("--plies", type=int, nargs="+", default=[6], help="solve the last PLIES plies (default 6)")
    args = parser.parse_args(argv)
    if not all(1 <= n <= 8 for n in args.plies):
        raise SystemExit("endgame: --plies must be 1-8 (the solver's cost grows ~30x a ply)")
    if not args.outcomes and (args.player is None or len(args.plies) > 1 or len(args.games) > 1):
        raise SystemExit("endgame: give --player, one games file and one --plies (or --outcomes)")
    started = time.perf_counter()
    try:
        if args.outcomes:
            line = {"benchmark": "endgame_outcomes", "games_files": len(args.games), "plies": args.plies}
            line |= outcomes_against_exact(read_outcome_records(args.games), args.plies)
        else:
            result = check_games(read_records(args.games[0]), args.player, args.opponent, args.plies[0])
            if result["games"] == 0:
                raise SystemExit(f"endgame: no game of {args.player} in {args.games[0]}")
            line = {"benchmark": "endgame", "games_file": str(args.games[0]), "player": args.player}
            line |= {"opponent": args.opponent, "plies": args.plies[0]} | result
    except (OSError, ValueError) as e:
        raise SystemExit(f"endgame: {e}") from None
    line |= {"seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps(line | {"machine": machine_info()}))


if __name__ == "__main__":
    main()
