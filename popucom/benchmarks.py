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

# What the reference project's C++ rules engine does on one core, in random games per
# second: the yardstick the rules benchmark reports against (docs/benchmarks.md, Rules).
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


def encode_times(packed: np.ndarray, out: np.ndarray, calls: int) -> None:
    """Encodes the packed positions into `out`, `calls` times over."""
    for _ in range(calls):
        _core.encode_batch(packed, out)


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
    encode_s = median_time(lambda: encode_times(packed, out, encode_calls), repeats)

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


def multi_search_step_costs(threads: int, games: int, leaves_per_game: int, visits: int) -> dict:
    """Drives a MultiSearch from Python with the zero-cost evaluator; returns per-leaf costs."""
    from .infer.fake import UniformEvaluator
    from .search import BatchedSearch

    params = _core.SearchParams()
    params.leaves_per_game = leaves_per_game
    params.root_noise = True
    driver = BatchedSearch(
        UniformEvaluator(games * leaves_per_game), num_games=games, params=params, cache_mb=64, threads=threads, seed=1
    )
    rng = random.Random(0)
    for g in range(games):  # a spread of opening positions, as in self-play
        game = _core.Game()
        for _ in range(rng.randrange(0, 12)):
            game.play(rng.choice(game.legal_moves()))
        driver.search.reset(g, game.position)
    driver.search.set_visit_targets(visits)
    start = time.perf_counter()
    driver.run()
    wall = time.perf_counter() - start
    t = driver.timings
    return {
        "threads": threads,
        "leaves": t.leaves,
        "mean_batch": round(t.mean_batch, 1),
        "search_us_per_leaf": round(t.search_s / t.leaves * 1e6, 3),
        "leaves_per_s": round(t.leaves / wall),
        "cache_hit_rate": round(driver.cache.hit_rate, 4),
    }


def bench_search(
    repeats: int = 5,
    serial_visits: int = 200_000,
    games: int = 256,
    leaves_per_game: int = 2,
    visits: int = 400,
    uct_rollouts: int = 2000,
) -> dict:
    """(a) serial C++ search playouts/s, (b) batched search cost per leaf, (c) uct rollouts/s."""
    serial = [_core.bench_serial_search(serial_visits, seed=i) for i in range(repeats)]
    serial_s = statistics.median(r["seconds"] for r in serial)

    multi = {}
    for threads in (1, 2):
        runs = [multi_search_step_costs(threads, games, leaves_per_game, visits) for _ in range(repeats)]
        multi[threads] = {key: statistics.median(r[key] for r in runs) for key in runs[0] if key != "threads"}

    bot = _core.Bot(f"uct:{uct_rollouts}", seed=0)
    game = _core.Game.from_record("e5 d4 c3 f6 g7 b2")
    uct_s = median_time(lambda: bot.select_move(game.position), repeats)

    return {
        "benchmark": "search",
        "serial_playouts_per_s": round(serial_visits / serial_s),
        "serial_visits": serial_visits,
        "multi_games": games,
        "multi_leaves_per_game": leaves_per_game,
        "multi_visits_per_move": visits,
        "multi_1_thread": multi[1],
        "multi_2_threads": multi[2],
        "thread_speedup": round(multi[2]["leaves_per_s"] / multi[1]["leaves_per_s"], 2),
        "uct_rollouts": uct_rollouts,
        "uct_rollouts_per_s": round(uct_rollouts / uct_s),
        "repeats": repeats,
        "statistic": "median",
        "machine": machine_info(),
    }


def main_search(repeats: int = 5) -> None:
    print(json.dumps(bench_search(repeats=repeats)))


MIN_BLOCK_SECONDS = 0.2


def seconds_per_call(run: Callable[[np.ndarray], object], x: np.ndarray) -> float:
    """Seconds per call over a block of calls of at least MIN_BLOCK_SECONDS: one call of a
    millisecond would also time the tail of the previous candidate's threads (torch's OpenMP
    workers spin a while after each operator, on the cores the next candidate wants)."""
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < MIN_BLOCK_SECONDS or calls == 0:
        run(x)
        calls += 1
    return elapsed / calls


def evaluations_per_s(
    candidates: dict[str, Callable[[np.ndarray], object]], batches: list[int], repeats: int
) -> dict[str, dict[str, int]]:
    """Network evaluations per second of each candidate (a function of a feature batch) at each
    batch size: the median of `repeats` rounds, the candidates interleaved round by round so that
    load from other processes hits all alike. Keyed by candidate, then batch size as a string."""
    from .data.positions import random_features

    inputs = {b: random_features(b, seed=b, komi_range=5) for b in batches}
    times: dict[tuple[str, int], list[float]] = {(name, b): [] for name in candidates for b in batches}
    for run in candidates.values():
        for b in batches:
            run(inputs[b])  # warm-up
    for _ in range(repeats):
        for b in batches:
            for name, run in candidates.items():
                times[name, b].append(seconds_per_call(run, inputs[b]))
    return {name: {str(b): round(b / statistics.median(times[name, b])) for b in batches} for name in candidates}


def bot_game_moves(bot_spec: str, games: int, seed: int) -> list[list[int]]:
    """Each game's moves: BOT against itself after 2 uniformly random plies."""
    rng = random.Random(seed)
    bot = _core.Bot(bot_spec)
    records = []
    for _ in range(games):
        game = _core.Game(0)
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()) if len(game) < 2 else bot.select_move(game.position))
        records.append(list(game.moves))
    return records


def position_before_end(moves: list[int], plies: int) -> _core.Position | None:
    """The position with `plies` plies left in a game (None if the game ended earlier)."""
    position = _core.Position()
    for move in moves:
        if sum(position.moves_left) == plies:
            return position
        position = position.play(move)
    return position if sum(position.moves_left) == plies and not position.is_over else None


def solve_each(positions: list[_core.Position], plies: int) -> dict:
    """Solves each position `plies` plies deep, each timed in process time: the values (as a
    string of + 0 -), the positions visited (in all, the median and the most: the figures that
    two builds, or two loads on a shared machine, give alike), the CPU seconds in all, median
    and slowest."""
    values, nodes, seconds = [], [], []
    for position in positions:
        start = time.process_time()
        value, visited = _core.solve_counted(position, plies)
        seconds.append(time.process_time() - start)
        values.append(value)
        nodes.append(visited)
    total = sum(seconds)
    return {
        "plies": plies,
        "positions": len(positions),
        "values": "".join("-0+"[v + 1] for v in values),
        "nodes": sum(nodes),
        "median_nodes": round(statistics.median(nodes)) if nodes else None,
        "most_nodes": max(nodes, default=None),
        "cpu_seconds": round(total, 3),
        "median_ms": round(1000 * statistics.median(seconds), 2) if seconds else None,
        "slowest_s": round(max(seconds), 3) if seconds else None,
        "nodes_per_cpu_second": round(sum(nodes) / total) if total > 0 else None,
    }
