"""Throughput benchmarks; each prints one JSON line (figures, units, machine).

Timings are medians over several repeats, so one noisy run does not decide a
figure. Nothing here is a pass/fail test.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from . import _core

# What the reference project's C++ rules engine does on one core of the
# project's CI machine (shared/docs/REFERENCE.md), in random games per second.
REFERENCE_RANDOM_GAMES_PER_S = 300_000


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu,
        "logical_cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "core_build": dict(_core.BUILD_INFO),
    }


def median_time(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of `repeats` calls of run(), after one warm-up call."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_rules(games: int = 200_000, repeats: int = 5, batch: int = 256) -> dict:
    """Random playouts in C++, the Python API's per-move cost, encoder speed."""
    playout_s = median_time(lambda: _core.random_playouts(games, seed=1), repeats)
    plies = _core.random_playouts(games, seed=1)["plies"]

    rng = random.Random(0)
    records = []
    for _ in range(200):
        game = _core.Game()
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        records.append(game.moves)
    api_moves = sum(len(r) for r in records)

    def replay_ints() -> None:
        for moves in records:
            game = _core.Game()
            for move in moves:
                game.play(move)

    def replay_with_legal_moves() -> None:
        for moves in records:
            game = _core.Game()
            for move in moves:
                game.legal_moves()
                game.play(move)

    play_s = median_time(replay_ints, repeats)
    play_legal_s = median_time(replay_with_legal_moves, repeats)

    positions = []
    for game_moves in records:
        game = _core.Game()
        for move in game_moves:
            game.play(move)
            positions.append(game.position.pack())
    packed = np.stack(positions[:batch])
    out = np.empty((batch, _core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE), dtype=np.float32)
    encode_calls = 50
    encode_s = median_time(lambda: [_core.encode_batch(packed, out) for _ in range(encode_calls)], repeats)

    games_per_s = games / playout_s
    return {
        "benchmark": "rules",
        "random_games_per_s": round(games_per_s),
        "random_plies_per_s": round(plies / playout_s),
        "vs_reference_random_games": round(games_per_s / REFERENCE_RANDOM_GAMES_PER_S, 2),
        "python_play_us_per_move": round(play_s / api_moves * 1e6, 3),
        "python_legal_moves_and_play_us_per_move": round(play_legal_s / api_moves * 1e6, 3),
        "encoder_batch": batch,
        "encoder_positions_per_s": round(batch * encode_calls / encode_s),
        "encoder_us_per_batch": round(encode_s / encode_calls * 1e6, 2),
        "repeats": repeats,
        "statistic": "median",
        "games_per_repeat": games,
        "threads": 1,
        "machine": machine_info(),
    }


def main_rules(games: int = 200_000, repeats: int = 5) -> None:
    print(json.dumps(bench_rules(games=games, repeats=repeats)))
