"""How often a player throws the exact result away near the end of its games: ONE JSON line.

    python -m popucom.experiments.endgame_audit GAMES.jsonl [--player NAME] --plies 7 8 9 10
    python -m popucom.experiments.endgame_audit GAMES.jsonl --player NAME --plies 7 8 --replay SPEC [SPEC ...]
    python -m popucom.experiments.endgame_audit GAMES.jsonl --play A B --games G [--openings-plies 4]
                                                [--threads 1] [--seed 0] [--player NAME] --plies 7 8

For each N of --plies: the positions of the games (the arena's games.jsonl records) with exactly
N plies left and PLAYER to move (every player's, without --player). A position is *critical*
when its legal moves differ in exact win/draw/loss value; in it, a move whose exact value is
below the best one throws a result away (a win to a draw or a loss, a draw to a loss). Reported
per N: positions, critical ones, how many of those lost value, that share and its 95% Wilson
interval, and the solver's positions visited and CPU seconds. Every position is solved exactly
(_core.audit_move: the position, the move played, and the other moves only as far as needed to
tell whether one is worse, one table), so the figures are deterministic.

With --replay SPEC [SPEC ...], each SPEC's player (an arena player spec) decides every audited
position afresh (all of them searched at once from fresh trees, as the arena plays), and its
move is audited instead of the recorded one: the same positions for every setting compared, so
the comparison is paired. Each replay reports its horizons and its CPU seconds per decision.
--replays-only skips the audit of the recorded moves (its "horizons" are then empty), which at
ten plies left takes seconds a position. With --sessions, each replay plays the last MAX_PLIES
plies of every game as the GUI's AI does instead (a session per colour, told every move, its
tree and its exact solver's table kept; --table-mb sets each replay's table), and reports its
move times (median, 90th percentile, slowest) beside its horizons.

With --play, A and B (arena player specs: best, model.pt@visits=N, uct:N, ...) first play G
games (G/2 random openings of --openings-plies plies, each with both colours), appended to
GAMES.jsonl, which is then audited. The arena writes the same games:

    popucom arena A B --openings G/2 --opening-plies 4 --threads 1 --games-out GAMES.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from popucom import _core
from popucom.arena.match import GameRecord, append_records, make_openings, play_match, read_records
from popucom.arena.ratings import wilson_interval
from popucom.benchmarks import machine_info
from popucom.search.game_search import DEFAULT_ENDGAME_TABLE_MB

if TYPE_CHECKING:
    from popucom.player import Player

# The solver's cost grows several-fold with each ply (docs/benchmarks.md, "Endgame solver"):
# deeper audits would take minutes a move.
MAX_PLIES = 12


@dataclass(frozen=True)
class AuditedMove:
    """One position with its exact values: the best, and the move played's."""

    best: int
    played: int
    critical: bool  # some legal move's value differs from another's


def audited_positions(record: GameRecord, plies: int, player: str | None) -> list[tuple[int, _core.Position, int]]:
    """The positions of a game with exactly `plies` plies left and `player` (any, if None) to
    move, each with its ply in the game and the move played there. A game that ended early (a
    player without a legal move) may have none."""
    moves = _core.parse_record(record.moves)
    positions = _core.Game.from_record(record.moves, komi=record.komi).positions()
    found = []
    for ply, (position, move) in enumerate(zip(positions, moves)):
        if sum(position.moves_left) != plies or position.is_over:
            continue
        mover = record.black if position.to_move == _core.Color.BLACK else record.white
        if player is None or mover == player:
            found.append((ply, position, move))
    return found


def audit_move(position: _core.Position, move: int, plies: int) -> tuple[AuditedMove, int]:
    """The exact values at `position` and of `move`, with the solver's positions visited."""
    best, played, critical, nodes = _core.audit_move(position, move, plies)
    return AuditedMove(best=best, played=played, critical=critical), nodes


Memo = dict[tuple[int, int, int], tuple[AuditedMove, int]]


def audit_moves(moves: list[tuple[_core.Position, int]], plies: int, memo: Memo | None = None) -> dict:
    """The audit of these (position, move) pairs, each with `plies` plies left. `memo` keeps
    each pair's exact result for the next audit of the same positions (replays mostly choose
    the moves already audited); a remembered pair counts its positions visited again, so the
    figures but cpu_seconds (this audit's own solving) do not depend on the order of audits."""
    from tqdm import tqdm

    critical = lost = nodes = 0
    start = time.process_time()
    # Ten plies and more take seconds a position: show how far the audit is (on stderr).
    for position, move in tqdm(moves, desc=f"audit {plies} plies", unit="position", leave=False, dynamic_ncols=True):
        key = (position.hash, position.komi, move)
        found = memo.get(key) if memo is not None else None
        if found is None:
            found = audit_move(position, move, plies)
            if memo is not None:
                memo[key] = found
        result, visited = found
        nodes += visited
        critical += result.critical
        lost += result.played < result.best
    low, high = wilson_interval(lost, critical)
    return {
        "plies": plies,
        "positions": len(moves),
        "critical": critical,
        "lost": lost,
        "share": round(lost / critical, 4) if critical else None,
        "interval": [round(low, 4), round(high, 4)],
        "nodes": nodes,
        "cpu_seconds": round(time.process_time() - start, 2),
    }


def audit(records: list[GameRecord], plies: int, player: str | None, memo: Memo | None = None) -> dict:
    """The audit of the moves played, at one horizon (see the module docstring)."""
    found = [(position, move) for r in records for _, position, move in audited_positions(r, plies, player)]
    return audit_moves(found, plies, memo)


def replayed_moves(
    records: list[GameRecord], plies: int, player: str | None, replayer: Player
) -> list[tuple[_core.Position, int]]:
    """The audited positions of one horizon, each with the move `replayer` chooses there."""
    games, positions = [], []
    for record in records:
        moves = _core.parse_record(record.moves)
        for ply, position, _ in audited_positions(record, plies, player):
            game = _core.Game(record.komi)
            for move in moves[:ply]:
                game.play(move)
            games.append(game)
            positions.append(position)
    if not games:
        return []
    chosen = replayer.play_moves(games, list(range(len(games))))
    return list(zip(positions, chosen))


def replay_audit(
    records: list[GameRecord], horizons: list[int], player: str | None, replayer: Player, memo: Memo | None = None
) -> dict:
    """The audit of the moves `replayer` chooses at the audited positions, at each horizon."""
    lines, decided, decide_s = [], 0, 0.0
    for plies in horizons:
        start = time.process_time()
        moves = replayed_moves(records, plies, player, replayer)
        decide_s += time.process_time() - start
        decided += len(moves)
        lines.append(audit_moves(moves, plies, memo))
    return {
        "replay": replayer.name,
        "horizons": lines,
        "cpu_seconds_per_decision": round(decide_s / decided, 4) if decided else None,
    }


def session_decisions(
    records: list[GameRecord], horizons: list[int], player: str | None, replayer: Player, table_mb: float
) -> tuple[dict[int, list[tuple[_core.Position, int]]], list[float]]:
    """`replayer` playing each game's last MAX_PLIES plies as the GUI's AI does, once per
    colour (PLAYER's colour only, if given): one session per colour follows the recorded game
    (told every move, so its tree and its solver table are kept), searches each of its
    positions in those plies and chooses its move there. Returns the chosen moves at the
    positions of each horizon, and every decision's wall seconds."""
    from tqdm import tqdm

    # A bot has no session: it decides each position on its own.
    sessions = [replayer.session(endgame_table_mb=table_mb) if replayer.is_model else None for _ in range(2)]
    decided: dict[int, list[tuple[_core.Position, int]]] = {plies: [] for plies in horizons}
    seconds = []
    for record in tqdm(records, desc=f"{replayer.name} as the GUI's AI", unit="game", leave=False, dynamic_ncols=True):
        for colour, session in zip((_core.Color.BLACK, _core.Color.WHITE), sessions):
            mover = record.black if colour == _core.Color.BLACK else record.white
            if player is not None and mover != player:
                continue
            game = _core.Game(record.komi)
            if session is not None:
                session.set_position(game.position)  # a new game: a fresh tree and an empty table
            for move in _core.parse_record(record.moves):
                position = game.position
                plies = sum(position.moves_left)
                if position.to_move == colour and plies <= MAX_PLIES:
                    start = time.perf_counter()
                    if session is None:
                        chosen = replayer.bot_move(position)
                    else:
                        chosen = session.move_to_play(session.search(visits=replayer.visits))
                    seconds.append(time.perf_counter() - start)
                    if plies in decided:
                        decided[plies].append((position, chosen))
                if session is not None:
                    session.follow(position, move)
                game.play(move)
    return decided, seconds


def session_audit(
    records: list[GameRecord],
    horizons: list[int],
    player: str | None,
    replayer: Player,
    table_mb: float,
    memo: Memo | None = None,
) -> dict:
    """The audit of the moves `replayer` chooses as the GUI's AI (session_decisions), at each
    horizon, with its move times."""
    decided, seconds = session_decisions(records, horizons, player, replayer, table_mb)
    times = {}
    if seconds:
        times = {
            "decisions": len(seconds),
            "median_s": round(statistics.median(seconds), 4),
            "p90_s": round(statistics.quantiles(seconds, n=10, method="inclusive")[-1], 4),
            "max_s": round(max(seconds), 4),
            "mean_s": round(statistics.mean(seconds), 4),
        }
    return {
        "replay": replayer.name,
        "sessions": True,
        "endgame_table_mb": table_mb,
        "horizons": [audit_moves(decided[plies], plies, memo) for plies in horizons],
        "move_time": times,
    }


def play_games(a: str, b: str, games: int, opening_plies: int, threads: int, seed: int, out: Path) -> int:
    """Plays a against b from games/2 random openings (each with both colours), appending the
    records to `out`; returns how many."""
    from popucom.player import Player
    from popucom.player_spec import PlayerSpec, load_evaluator

    if games < 2 or games % 2:
        raise ValueError(f"--games must be even and at least 2 (each opening is played with both colours), got {games}")
    specs = [PlayerSpec.parse(a), PlayerSpec.parse(b)]
    if specs[0].name == specs[1].name:
        raise ValueError(f"the two players need different names, both are {specs[0].name}")
    openings = make_openings(games // 2, opening_plies, seed)
    players = [
        Player.from_spec(s, seed=i, evaluator=load_evaluator(s, "cpu", threads) if s.is_network else None)
        for i, s in enumerate(specs)
    ]
    records = play_match(players[0], players[1], openings, progress=True, desc=f"{specs[0].name} vs {specs[1].name}")
    append_records(out, records)
    return len(records)


def replayer(spec: str, threads: int, seed: int) -> Player:
    """The player of a --replay spec, named with its settings (popucom-small-v11@200,KEY=VALUE)."""
    from popucom.player import Player

    return Player.from_spec(spec, threads=threads, seed=seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=Path, help="game records (the arena's games.jsonl)")
    parser.add_argument("--player", help="audit this player's moves only (default: every move)")
    parser.add_argument("--plies", type=int, nargs="+", default=[7, 8], help=f"plies left, each 1-{MAX_PLIES}")
    parser.add_argument("--play", nargs=2, metavar=("A", "B"), help="first play A against B into GAMES")
    parser.add_argument("--games", type=int, default=100, dest="count", help="games to play with --play")
    parser.add_argument("--openings-plies", type=int, default=4, help="random plies before each game (--play)")
    parser.add_argument("--threads", type=int, default=1, help="network threads (--play)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings (--play)")
    parser.add_argument("--replay", nargs="+", metavar="SPEC", default=[], help="audit these players' moves instead")
    parser.add_argument(
        "--replays-only", action="store_true", help="with --replay, skip the audit of the recorded moves (it is slow)"
    )
    parser.add_argument(
        "--sessions",
        action="store_true",
        help="with --replay, each replay plays the games' last plies as the GUI's AI (session_decisions)",
    )
    parser.add_argument(
        "--table-mb",
        type=float,
        nargs="+",
        metavar="MB",
        help="with --sessions, each replay's kept solver table in MB (one per SPEC; default: the session's)",
    )
    args = parser.parse_args(argv)
    if not all(1 <= n <= MAX_PLIES for n in args.plies):
        raise SystemExit(f"endgame_audit: --plies must be 1-{MAX_PLIES}")
    table_mb = args.table_mb or [DEFAULT_ENDGAME_TABLE_MB] * len(args.replay)
    if (args.sessions or args.table_mb) and not (args.sessions and args.replay and len(table_mb) == len(args.replay)):
        raise SystemExit("endgame_audit: --sessions needs --replay, and --table-mb one value per SPEC")
    started = time.perf_counter()
    try:
        if args.play:
            first, second = args.play
            play_games(first, second, args.count, args.openings_plies, args.threads, args.seed, args.games)
        records = read_records(args.games)
        replayers = [replayer(spec, args.threads, seed=i) for i, spec in enumerate(args.replay)]
    except (OSError, ValueError) as e:
        raise SystemExit(f"endgame_audit: {e}") from None
    if args.player is not None:
        records = [r for r in records if args.player in (r.black, r.white)]
        if not records:
            raise SystemExit(f"endgame_audit: no game of {args.player} in {args.games}")
    memo: Memo = {}
    recorded = [] if args.replays_only and replayers else [audit(records, n, args.player, memo) for n in args.plies]
    line = {
        "benchmark": "endgame_audit",
        "games_file": str(args.games),
        "player": args.player,
        "games": len(records),
        "horizons": recorded,
        "replays": [
            session_audit(records, args.plies, args.player, r, mb, memo)
            if args.sessions
            else replay_audit(records, args.plies, args.player, r, memo)
            for r, mb in zip(replayers, table_mb)
        ],
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(line | {"machine": machine_info()}))


if __name__ == "__main__":
    main()
