"""popucom.experiments.endgame: what exact endgame play would have changed in recorded games."""

import json
import random
import subprocess
import sys
from pathlib import Path

from popucom import _core
from popucom.arena.match import GameRecord, append_records
from popucom.data.records import outcome_fields
from popucom.experiments import endgame

COMMAND = [sys.executable, "-m", "popucom.experiments.endgame"]


def exact_values(position: _core.Position) -> dict[int, int]:
    return {m: -_core.solve(position.play(m), 6) for m in position.legal_moves()}


def game(seed: int, last_move_worst: bool) -> GameRecord | None:
    """A random game whose last six plies are exact, except, if `last_move_worst`, the last move
    (White's), which is one of the worst when moves differ there (None if they never differ)."""
    rng = random.Random(seed)
    position, moves = _core.Position(), []
    while not position.is_over:
        legal = position.legal_moves()
        if sum(position.moves_left) > 6:
            move = rng.choice(legal)
        else:
            exact = exact_values(position)
            worst, best = min(exact.values()), max(exact.values())
            if sum(position.moves_left) == 1 and last_move_worst:
                if worst == best:
                    return None
                move = next(m for m in legal if exact[m] == worst)
            else:
                move = next(m for m in legal if exact[m] == best)
        moves.append(move)
        position = position.play(move)
    return GameRecord("A", "B", _core.format_record(moves), 0, **outcome_fields(position), opening_plies=0)


def test_exact_games_are_left_alone_and_a_missed_best_last_move_counts_as_better() -> None:
    exact = [g for g in (game(seed, False) for seed in range(3)) if g is not None]
    assert len(exact) == 3 and endgame.check_games(exact, "B", "A", 6)["switched"] == 0
    missed = next(g for g in (game(seed, True) for seed in range(100)) if g is not None)
    result = endgame.check_games([missed] + exact, "B", None, 6)
    # the last move decides the game by itself: playing the worst loses exactly what the best keeps
    assert result == {"games": 4, "switched": 1, "better": 1, "worse_at_most": 0}


def test_command_prints_one_json_line_and_rejects_an_unknown_player(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    append_records(games, [game(0, False)])
    run = [*COMMAND, str(games), "--player", "A"]
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    assert len(out) == 1 and json.loads(out[0])["games"] == 1
    missing = subprocess.run(run[:-1] + ["nobody"], capture_output=True, text=True)
    assert missing.returncode != 0 and "no game of nobody" in missing.stderr


def test_outcomes_count_the_games_a_late_blunder_turned(tmp_path: Path) -> None:
    exact = [g for g in (game(seed, False) for seed in range(3)) if g is not None]
    missed = next(g for g in (game(seed, True) for seed in range(100)) if g is not None)
    records = [{"moves": g.moves, "komi": g.komi, "result": g.result, "end": g.end} for g in exact + [missed]]
    result = endgame.outcomes_against_exact(records, [6, 1])
    # White's worst last move turns the result of the game it is in, from six plies out and from one
    assert result["games"] == 4 and result["differ"] == {"6": 1, "1": 1}
    selfplay = tmp_path / "selfplay.games.jsonl"  # one model on both sides, as self-play writes
    selfplay.write_text("".join(json.dumps(r | {"black": "m", "white": "m"}) + "\n" for r in records))
    run = [*COMMAND, str(selfplay), "--outcomes", "--plies", "6", "1"]
    line = json.loads(subprocess.run(run, capture_output=True, text=True, check=True).stdout)
    assert line["differ"] == {"6": 1, "1": 1}
    selfplay.write_text('{"moves": "e5"}\n')
    broken = subprocess.run(run, capture_output=True, text=True)
    assert broken.returncode != 0 and "selfplay.games.jsonl:1: not a game record" in broken.stderr
