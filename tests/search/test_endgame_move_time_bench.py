"""bench/endgame_move_time.py: the GUI's AI time per game under two search settings, on the
same recorded positions."""

import json
import subprocess
import sys
from pathlib import Path

from popucom.experiments import endgame_audit

ROOT = Path(__file__).parents[2]
BENCH = ROOT / "bench" / "endgame_move_time.py"  # a script: run, not imported


def test_bench_times_each_setting_on_the_same_games(tmp_path) -> None:
    games = tmp_path / "games.jsonl"
    endgame_audit.play_games("greedy", "random", 2, 4, threads=1, seed=1, out=games)
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            str(games),
            "--games",
            "2",
            "--visits",
            "8",
            "--threads",
            "1",
            "--model",
            str(ROOT / "weights" / "popucom-small-v1.onnx"),
            "--settings",
            "",
            "endgame_solve_plies=0",
            "--table-mb",
            "8",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["bench"] == "endgame_move_time" and line["games"] == 2 and line["visits"] == 8
    first, second = line["settings"]
    assert (first["settings"], second["settings"]) == ("play defaults", "endgame_solve_plies=0")
    assert (first["endgame_table_mb"], second["endgame_table_mb"]) == (8, 0)
    assert first["game_ratio"] == 1.0 and second["game_ratio"] > 0
    for setting in (first, second):
        assert 0 < setting["move_mean_s"] <= setting["move_max_s"] and setting["move_p90_s"] <= setting["move_max_s"]
        assert 0 < setting["last_plies_s"] <= setting["game_s"]
    assert "cpu" in line["machine"]


def test_an_empty_games_file_is_refused(tmp_path) -> None:
    (tmp_path / "none.jsonl").write_text("")
    out = subprocess.run([sys.executable, str(BENCH), str(tmp_path / "none.jsonl")], capture_output=True, text=True)
    assert out.returncode != 0 and "no game" in out.stderr
