"""An optional warm start: a short supervised phase on games of a network-free
C++ bot (`uct:N`), which are cheap to generate, before self-play begins.

It writes the run's iteration-0 checkpoint and model, so `run_pipeline`
continues from the warm network exactly as it would from a random one. The
bot games live in `<run>/warm_start/`, outside the self-play window.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from ..data.bot_games import bot_game_shards, write_bot_games
from ..fileio import write_text_atomic
from ..nn.export import export_onnx
from ..train.trainer import Trainer
from ..train.window import ReplayWindow
from .config import PipelineConfig
from .run_dir import RunDir
from .warm_start_progress import WarmStartProgress, expected_steps, time_a_step

logger = logging.getLogger(__name__)

# Games per shard of the bot games: a killed warm start replays at most one shard per thread.
GAMES_PER_SHARD = 50
SUMMARY = "summary.json"  # what the warm start took, beside its games


def games_written(folder: Path, games: int, bot: str, seed: int) -> int:
    """The games in the shards a killed warm start finished (write_bot_games keeps them)."""
    shards = bot_game_shards(folder, games, bot, GAMES_PER_SHARD, seed)
    return sum(min(GAMES_PER_SHARD, games - i * GAMES_PER_SHARD) for i, path in enumerate(shards) if path.exists())


def warm_start(
    run_dir: str | Path,
    config: PipelineConfig,
    bot: str = "uct:1000",
    games: int = 400,
    epochs: float = 2.0,
    seed: int = 0,
    threads: int = 1,
    progress: bool = False,
) -> dict:
    """Plays `games` bot games (on `threads` threads), trains on them `epochs` times over,
    and writes iteration 0. Games already in `<run>/warm_start/` are used as they are. The
    figures returned are also written to `<run>/warm_start/summary.json`. With `progress`,
    one bar estimates the whole warm start from its first game (warm_start_progress.py)."""
    run = RunDir(run_dir)
    if run.checkpoint(0).exists():
        raise ValueError(f"{run.root} already has an iteration-0 checkpoint: a warm start only begins a run")
    folder = run.warm_start
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "games_done.json"
    # One estimate for the games and the training together, above each phase's own bar.
    overall = WarmStartProgress(
        games,
        games if done.exists() else games_written(folder, games, bot, seed),
        expected_steps(games, epochs, config.train.batch_size),
        time_a_step(config.model, config.train) if progress else None,
        enabled=progress,
    )
    started = time.perf_counter()
    if not done.exists():  # a killed run left the shards it finished, which are kept
        wanted = set(bot_game_shards(folder, games, bot, GAMES_PER_SHARD, seed))
        for other in set(folder.glob("*.pcs")) - wanted:  # another bot, count or seed
            other.unlink()
        write_bot_games(
            folder,
            games,
            spec=bot,
            games_per_shard=GAMES_PER_SHARD,
            seed=seed,
            threads=threads,
            progress=progress,
            on_game=overall.game_done,
        )
        write_text_atomic(done, json.dumps({"bot": bot, "games": games, "seed": seed}))
    games_s = time.perf_counter() - started
    window = ReplayWindow(folder, window_samples=10**9, val_fraction=0.0)
    steps = max(1, round(epochs * window.num_samples / config.train.batch_size))
    trainer = Trainer(config.model, config.train)
    logger.info(f"warm start: {games} {bot} games ({window.num_samples} positions) in {games_s:.0f} s; {steps} steps")
    overall.start_training(steps)
    metrics = trainer.train(window, steps, progress=progress, on_step=overall.step_done)
    overall.close()
    trainer.save(run.checkpoint(0))
    export_onnx(
        trainer.model.eval(),
        run.model(0),
        extra_metadata={"iteration": "0", "step": str(trainer.step), "warm_start": f"{games} {bot} games"},
    )
    figures = {
        "bot": bot,
        "games": games,
        "positions": window.num_samples,
        "steps": steps,
        "games_s": games_s,  # 0 where the games were there already
        "seconds": time.perf_counter() - started,
        "policy_loss": metrics.get("loss/policy"),
    }
    write_text_atomic(folder / SUMMARY, json.dumps(figures, indent=1))
    return figures
