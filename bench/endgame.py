"""What exact endgame play would have changed in games played without it: ONE JSON line.

    python bench/endgame.py GAMES.jsonl --player NAME [--opponent NAME] [--plies 6]

For every game of PLAYER (against OPPONENT, if given), each of its moves with PLIES or fewer
plies left is checked by the solver (`_core.solve` on every legal move). At the first move
whose exact result is worse than the best one (where the search's endgame_solve_plies would
switch), the game's final result is compared with that best exact value: below it, exact play
would have done better (it guarantees that value against any reply); above it, the opponent
erred after the inexact move, and exact play might have done worse. Deterministic, and far less
noisy than replaying the games with the setting on: only the games it touches count.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=Path)
    parser.add_argument("--player", required=True)
    parser.add_argument("--opponent")
    parser.add_argument("--plies", type=int, default=6, help="solve the last PLIES plies (default 6)")
    args = parser.parse_args()
    if not 1 <= args.plies <= 8:
        raise SystemExit("endgame: --plies must be 1-8 (the solver's cost grows ~30x a ply)")
    try:
        records = read_records(args.games)
    except (OSError, ValueError) as e:
        raise SystemExit(f"endgame: {e}") from None
    started = time.perf_counter()
    result = check_games(records, args.player, args.opponent, args.plies)
    if result["games"] == 0:
        raise SystemExit(f"endgame: no game of {args.player} in {args.games}")
    line = {"benchmark": "endgame", "games_file": str(args.games), "player": args.player, "opponent": args.opponent}
    line |= {"plies": args.plies} | result | {"seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps(line | {"machine": machine_info()}))


if __name__ == "__main__":
    main()
