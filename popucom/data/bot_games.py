"""Training games from the network-free bots: a fixed dataset for the
architecture ablation, and data to check the trainer without self-play."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from .. import _core
from .shards import concat_samples, samples_from_game, write_shard


def play_bot_game(bot: _core.Bot, rng: random.Random, random_plies: int, komi: int = 0) -> dict[str, np.ndarray]:
    """One game of `bot` against itself after `random_plies` uniformly random moves.
    Every bot move is a training row with the bot's policy as target."""
    game = _core.Game(komi)
    positions, policies = [], []
    while not game.is_over:
        position = game.position
        if len(game) < random_plies:
            game.play(rng.choice(game.legal_moves()))
            continue
        move = bot.select_move(position)
        positions.append(position)
        policies.append(bot.last_policy())
        game.play(move)
    n = len(positions)
    return samples_from_game(
        positions,
        np.array(policies).reshape(n, _core.NUM_SQUARES),
        np.ones(n, bool),
        game.position,
        rng.getrandbits(64),
    )


def write_bot_games(
    out_dir: str | Path,
    games: int,
    spec: str = "uct:200",
    games_per_shard: int = 250,
    seed: int = 0,
    random_plies: int = 4,
    threads: int = 1,
) -> list[Path]:
    """Plays `games` bot games and writes them as shards under out_dir. With threads > 1
    the games are split over threads, each with its own bot and seed (the bots release
    the GIL while they think)."""
    if threads > 1:
        from concurrent.futures import ThreadPoolExecutor

        shares = [games // threads + (t < games % threads) for t in range(threads)]
        with ThreadPoolExecutor(threads) as pool:
            parts = pool.map(
                lambda t: write_bot_games(out_dir, shares[t], spec, games_per_shard, seed * 1000 + t, random_plies),
                range(threads),
            )
            return [path for part in parts for path in part]
    rng = random.Random(seed)
    bot = _core.Bot(spec, seed=seed)
    paths, parts = [], []
    for g in range(games):
        parts.append(play_bot_game(bot, rng, random_plies))
        if len(parts) == games_per_shard or g == games - 1:
            path = Path(out_dir) / f"{spec.replace(':', '')}-{seed}-{len(paths):05d}.pcs"
            paths.append(write_shard(path, concat_samples(parts), meta={"source": spec, "seed": seed}))
            parts = []
    return paths
