"""Training games from the network-free bots: a fixed dataset for the
architecture ablation, and data to check the trainer without self-play."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
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


def bot_game_shards(out_dir: str | Path, games: int, spec: str, games_per_shard: int, seed: int) -> list[Path]:
    """The shard files of write_bot_games, in order."""
    count = -(-games // games_per_shard)
    return [Path(out_dir) / f"{spec.replace(':', '')}-{seed}-{i:05d}.pcs" for i in range(count)]


def write_bot_games(
    out_dir: str | Path,
    games: int,
    spec: str = "uct:200",
    games_per_shard: int = 250,
    seed: int = 0,
    random_plies: int = 4,
    threads: int = 1,
    progress: bool = False,
    on_game: Callable[[], None] | None = None,
) -> list[Path]:
    """Plays `games` bot games and writes them as shards of `games_per_shard` games under
    out_dir. Shard i's games come from a bot and a random stream of their own, seeded by (seed,
    i), so a shard already there (shards are written atomically) is kept as it is, and a killed
    run plays only the shards it had not finished. With threads > 1 the shards are shared out
    over threads (the bots release the GIL while they think); `progress` shows a bar per game,
    and `on_game` is called after each game (one thread at a time)."""
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    paths = bot_game_shards(out_dir, games, spec, games_per_shard, seed)
    todo = [i for i, path in enumerate(paths) if not path.exists()]
    size = [min(games_per_shard, games - i * games_per_shard) for i in range(len(paths))]
    bar = tqdm(
        total=games,
        initial=games - sum(size[i] for i in todo),
        desc=f"{spec} games",
        unit="game",
        disable=not progress,
        dynamic_ncols=True,
    )
    bar_lock = threading.Lock()

    def play_shard(i: int) -> None:
        shard_seed = seed * 100_003 + i
        rng, bot = random.Random(shard_seed), _core.Bot(spec, seed=shard_seed)
        parts = []
        for _ in range(size[i]):
            parts.append(play_bot_game(bot, rng, random_plies))
            with bar_lock:
                bar.update(1)
                if on_game is not None:
                    on_game()
        write_shard(paths[i], concat_samples(parts), meta={"source": spec, "seed": shard_seed})

    with ThreadPoolExecutor(max(1, threads)) as pool:
        list(pool.map(play_shard, todo))  # list(): a shard's error is raised here
    bar.close()
    return paths
