"""The moves the shipped model plays through each front end, at a fixed seed, are the recorded
ones: a change to how players, searches or trees are built must not change play. Run on the
native forward's fp32 products (POPUCOM_CPU_ISA=avx512), which give the same bits on every CPU
with AVX-512; elsewhere the network's rounding differs, and the test skips.

Record again, only for a change meant to alter play: python tests/engine/test_fixed_seed_play.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from popucom import _core

RECORDED = Path(__file__).with_name("data") / "fixed_seed_play.json"
ENV = {**os.environ, _core.CPU_ISA_ENV: "avx512"}
VISITS = 32
# The endgame tries end on the clock (SearchParams.endgame_try_seconds), so what they prove
# depends on the machine's speed: the recorded games play without them.
PLAYER = "best@endgame_try_plies=0"


def engine_game() -> list[str]:
    """A whole game of the engine against itself: genmove for both sides."""
    commands = "".join("genmove b\ngenmove w\n" for _ in range(_core.MOVES_PER_PLAYER)) + "quit\n"
    done = subprocess.run(
        [sys.executable, "-m", "popucom.cli", "engine", "--player", PLAYER, "--visits", str(VISITS), "--threads", "1"],
        input=commands, capture_output=True, text=True, env=ENV, timeout=300, check=True,
    )  # fmt: skip
    replies = [line[2:] for line in done.stdout.splitlines() if line.startswith("= ") and line != "= "]
    return replies


def arena_games() -> list[str]:
    """The model against uct:100 from one opening, both colours (the arena's own search)."""
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games.jsonl"
        command = [sys.executable, "-m", "popucom.cli", "arena", f"{PLAYER},visits={VISITS}", "uct:100"]
        command += ["--openings", "1", "--seed", "5", "--threads", "1", "--games-out", str(games)]
        subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=300, check=True)
        return [json.loads(line)["moves"] for line in games.read_text().splitlines()]


def play() -> dict[str, list[str]]:
    return {"engine": engine_game(), "arena": arena_games()}


@pytest.mark.skipif(
    _core.CPU_LEVELS.index(_core.detected_cpu_level()) < _core.CPU_LEVELS.index("avx512"),
    reason="the recorded moves come from the native forward's AVX-512 kernels",
)
def test_the_front_ends_play_the_recorded_moves() -> None:
    recorded = json.loads(RECORDED.read_text())
    played = play()
    assert _core.Game.from_record(" ".join(played["engine"])).is_over  # a whole game, every reply a move
    assert played == recorded


if __name__ == "__main__":
    RECORDED.parent.mkdir(exist_ok=True)
    RECORDED.write_text(json.dumps(play(), indent=1) + "\n")
    print(f"wrote {RECORDED}")
