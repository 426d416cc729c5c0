"""popucom.experiments.paired: two players' games against one opponent, paired by opening and colour."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from popucom.arena.match import GameRecord, append_records, read_records
from popucom.experiments import paired


def game(black: str, white: str, opening: str, result: str, score: int) -> GameRecord:
    return GameRecord(black, white, f"{opening} e5 f6", 0, result, score, "moves_exhausted", 2)


def records() -> list[GameRecord]:
    """A and B against "uct" on two openings, both colours; B gains on the first opening as Black
    (a loss becomes a win) and loses half a point on the second as White (a win becomes a draw)."""
    return [
        game("A", "uct", "a1 b2", "white", -3),
        game("uct", "A", "a1 b2", "white", -5),
        game("A", "uct", "c3 d4", "black", 4),
        game("uct", "A", "c3 d4", "white", -2),
        game("B", "uct", "a1 b2", "black", 1),
        game("uct", "B", "a1 b2", "white", -6),
        game("B", "uct", "c3 d4", "black", 4),
        game("uct", "B", "c3 d4", "draw", 0),
        game("A", "B", "a1 b2", "black", 9),  # not against the common opponent: ignored
    ]


def test_games_pair_by_opening_and_colour() -> None:
    result = paired.paired_comparison(records(), "A", "B", "uct")
    overall, black, white = result["overall"], result["as_black"], result["as_white"]
    assert overall["pairs"] == 4 and black["pairs"] == 2 and white["pairs"] == 2
    assert (black["score_a"], black["score_b"], black["difference"]) == (0.5, 1.0, 0.5)
    assert (white["score_a"], white["score_b"], white["difference"]) == (1.0, 0.75, -0.25)
    assert overall["difference"] == pytest.approx(0.125) and (overall["b_better"], overall["b_worse"]) == (1, 1)
    # margins from each player's side: A as Black -3 and +4, B as Black +1 and +4
    assert (black["margin_a"], black["margin_b"]) == (0.5, 2.5)
    assert (white["margin_a"], white["margin_b"]) == (3.5, 3.0)
    assert black["margin_difference"] == 2.0 and black["margin_difference_se"] == pytest.approx(2.0)  # +4, 0


def test_command_prints_one_json_line_and_names_a_missing_player(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    append_records(games, records())
    assert len(read_records(games)) == 9
    run = [sys.executable, "-m", "popucom.experiments.paired", str(games), "--a", "A", "--b", "B", "--opponent", "uct"]
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    assert len(out) == 1 and json.loads(out[0])["overall"]["pairs"] == 4
    missing = subprocess.run(run[:-1] + ["greedy"], capture_output=True, text=True)
    assert missing.returncode != 0 and "no opening where both A and B met greedy" in missing.stderr
