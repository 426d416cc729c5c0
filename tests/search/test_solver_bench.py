"""bench/solver.py and _core.solve_counted: the endgame solver's speed benchmark, its positions
taken by popucom.benchmarks."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from popucom import _core, benchmarks

BENCH = Path(__file__).parents[2] / "bench" / "solver.py"  # a script: run, not imported


def test_solve_counted_agrees_with_solve_and_counts_positions() -> None:
    games = benchmarks.bot_game_moves("greedy", 6, seed=5)
    for moves in games:
        position = benchmarks.position_before_end(moves, 4)
        assert position is not None and sum(position.moves_left) == 4
        value, nodes = _core.solve_counted(position, 4)
        assert value == _core.solve(position, 4) and value in (-1, 0, 1)
        # At least the root and one position per legal move at the last ply below it.
        assert nodes > len(position.legal_moves())
    with pytest.raises(ValueError, match="moves remain, more than max_plies"):
        _core.solve_counted(_core.Position(), 6)


def test_position_before_end_is_the_game_position_with_that_many_plies_left() -> None:
    moves = benchmarks.bot_game_moves("random", 1, seed=9)[0]
    position = benchmarks.position_before_end(moves, 3)
    replayed = _core.Position()
    for move in moves[: len(moves) - 3]:
        replayed = replayed.play(move)
    assert position is not None and position.hash == replayed.hash


def test_bench_prints_one_json_line_with_values_and_rates() -> None:
    out = subprocess.run(
        [sys.executable, str(BENCH), "--games", "3", "--bot", "greedy", "--plies", "2", "4"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert [h["plies"] for h in result["horizons"]] == [2, 4]
    for horizon in result["horizons"]:
        assert horizon["positions"] == len(horizon["values"]) == 3
        assert set(horizon["values"]) <= set("+0-") and horizon["nodes"] > 0
        assert horizon["median_nodes"] <= horizon["most_nodes"] <= horizon["nodes"]


def test_bench_takes_a_games_file_filtered_by_player(tmp_path: Path) -> None:
    from popucom.arena.match import GameRecord, append_records
    from popucom.data.records import outcome_fields

    records = []
    for seed, (black, white) in enumerate([("a", "b"), ("b", "a"), ("a", "c")]):
        moves = benchmarks.bot_game_moves("greedy", 1, seed=seed)[0]
        final = _core.Position()
        for move in moves:
            final = final.play(move)
        fields = outcome_fields(final)
        records.append(GameRecord(black, white, _core.format_record(moves), 0, **fields, opening_plies=2))
    games_file = tmp_path / "games.jsonl"
    append_records(games_file, records)
    out = subprocess.run(
        [sys.executable, str(BENCH), "--games-file", str(games_file), "--black", "a", "--plies", "4"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert json.loads(out)["horizons"][0]["positions"] == 2
