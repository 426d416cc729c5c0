"""A tournament kept in a games file: each pairing is completed to its number of games, playing
only the games the file lacks, so an interrupted table resumes and a pairing can be extended
later without replaying what was played. The strength tables and the levels' ratings
(popucom.experiments) fill their files through it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..player import Player
from .match import GameRecord, append_records, make_openings, play_match, summarize


def games_between(records: list[GameRecord], a: str, b: str) -> int:
    """Games of `records` between the players named a and b, either colour."""
    return sum(1 for r in records if {r.black, r.white} == {a, b})


def complete_pairing(
    records: list[GameRecord],
    games_out: Path,
    a: str,
    b: str,
    games: int,
    players: Callable[[int], tuple[Player, Player]],
    opening_plies: int,
    seed: int,
    progress: bool = True,
) -> list[GameRecord]:
    """Plays what `records` lack of `games` games between a and b (rounded up to an even number:
    each opening is played with both colours) on openings of their own, seeded by seed plus the
    games already played; appends them to `games_out` and to `records` and returns them.
    `players(played)` makes the two players (their seeds may follow `played`). A line with the
    score goes to stderr, where stdout is an experiment's one JSON line."""
    played = games_between(records, a, b)
    missing = games - played
    if missing <= 0:
        return []
    missing += missing % 2
    started = time.perf_counter()
    first, second = players(played)
    openings = make_openings(missing // 2, opening_plies, seed + played)
    new = play_match(first, second, openings, progress=progress, desc=f"{a} vs {b}")
    append_records(games_out, new)
    records += new
    if progress:
        s = summarize(new, a, b)
        seconds = time.perf_counter() - started
        score = f"+{s['a_wins']} ={s['draws']} -{s['b_wins']}"
        print(f"{a} vs {b}: {score} in {seconds:.0f} s", file=sys.stderr, flush=True)
    return new
