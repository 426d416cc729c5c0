"""One estimate for the whole warm start: its bot games and the training on them, shown as one bar
above each phase's own bar, the time left updated after every game and every training step.

A phase not yet run is estimated from what is known before it: the training's steps from the
games (POSITIONS_PER_GAME until the games are written, then exactly), its seconds a step from one
eager step timed before the games (`time_a_step`; a compiled step is faster, which leaves room for
the one-off compile). Measured rates replace the guesses as they come: the games' rate since they
began, the training's median step of the last RECENT_STEPS (a compile's minute-long step does not
move a median). Until one game has finished the games' time is unknown, and the bar says so.
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace

from ..nn.config import ModelConfig
from ..train.config import TrainConfig
from ..train.trainer import Trainer
from ..train.window import Batch

# Training positions a uct:1000 game gives: 1,200 games trained 862 steps of 128 over 2 epochs
# (docs/benchmarks.md, first run of the pipeline).
POSITIONS_PER_GAME = 46
RECENT_STEPS = 50
BAR = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]"


def time_a_step(model: ModelConfig, train: TrainConfig) -> float:
    """Seconds of one eager training step of this model at this batch size, on random positions
    (the second of two: the first allocates). Its Trainer is thrown away; the run's own one
    seeds torch again, so the run trains as it would without this."""
    trainer = Trainer(model, replace(train, compile=False))
    batch = Batch.random(train.batch_size)
    trainer.train_step(batch)
    started = time.perf_counter()
    trainer.train_step(batch)
    return time.perf_counter() - started


def expected_steps(games: int, epochs: float, batch_size: int) -> int:
    """The warm start's training steps for `games` games, before their positions are counted."""
    return max(1, round(epochs * games * POSITIONS_PER_GAME / batch_size))


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class WarmStartProgress:
    """The overall bar. `game_done` after each bot game, `start_training(steps)` once the games
    are written, `step_done` after each step, `close` at the end; `seconds_left` is the estimate
    (None until a game has finished, where games are left to play)."""

    def __init__(
        self,
        games: int,
        games_done: int,
        steps: int,
        seconds_per_step: float | None,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from tqdm import tqdm

        self.games, self.games_done = games, games_done
        self.steps, self.steps_done, self.steps_counted = steps, 0, False
        self.seconds_per_step = seconds_per_step  # the guess, until steps are timed
        self.clock = clock
        self.started = self.games_started = clock()
        self.games_played = 0  # by this process: the rate's
        self.step_times: deque[float] = deque(maxlen=RECENT_STEPS)
        self.last_step = self.started
        self.bar = tqdm(total=100, desc="warm start", bar_format=BAR, disable=not enabled, dynamic_ncols=True)
        self.show()

    def game_done(self) -> None:
        self.games_done += 1
        self.games_played += 1
        self.show()

    def start_training(self, steps: int) -> None:
        self.steps, self.steps_counted = steps, True
        self.last_step = self.clock()
        self.show()

    def step_done(self) -> None:
        now = self.clock()
        self.step_times.append(now - self.last_step)
        self.last_step = now
        self.steps_done += 1
        self.show()

    def seconds_left(self) -> float | None:
        games_left = self.games - self.games_done
        per_game = 0.0
        if games_left:
            if not self.games_played:
                return None
            per_game = (self.clock() - self.games_started) / self.games_played
        per_step = statistics.median(self.step_times) if self.step_times else self.seconds_per_step
        if per_step is None:
            return None
        return games_left * per_game + (self.steps - self.steps_done) * per_step

    def text(self) -> str:
        left = self.seconds_left()
        steps = f"{self.steps}" if self.steps_counted else f"~{self.steps}"
        when = f"about {duration(left)} left" if left is not None else "time left after the first game"
        return f"games {self.games_done}/{self.games}, training {self.steps_done}/{steps} steps, {when}"

    def show(self) -> None:
        left, elapsed = self.seconds_left(), self.clock() - self.started
        if left is not None:
            self.bar.n = 100 if left <= 0 else min(99, int(100 * elapsed / max(elapsed + left, 1e-9)))
        self.bar.set_postfix_str(self.text(), refresh=True)

    def close(self) -> None:
        self.bar.n = 100
        self.show()
        self.bar.close()
