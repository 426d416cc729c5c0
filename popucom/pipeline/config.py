"""Pipeline configuration and its presets. The resolved config is written to
the run directory on the first start and read back on every resume."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..arena.ladder import LadderConfig
from ..fileio import write_text_atomic
from ..nn.config import ModelConfig, preset
from ..selfplay.worker import SelfPlayConfig
from ..train.trainer import TrainConfig
from .config_check import ConfigError, check_settings


@dataclass(frozen=True)
class EvalConfig:
    openings: int = 4  # each played twice, colours swapped, against each opponent
    opening_plies: int = 4
    visits: int = 24
    baseline: str = "greedy"  # a fixed network-free yardstick
    gating: bool = False  # keep the previous model unless the new one passes an SPRT
    # Without gating the evaluation only informs: every N-th model plays it, against the
    # model N iterations older (a gap its few games can see); 1 with gating.
    every: int = 1
    sprt_elo0: float = 0.0
    sprt_elo1: float = 30.0
    sprt_alpha: float = 0.05
    sprt_beta: float = 0.05

    def __post_init__(self) -> None:
        if self.every < 1:
            raise ValueError(f"evaluation every {self.every} iterations: want 1 or more")
        if self.gating and self.every != 1:
            raise ValueError("gating evaluates every model: evaluation.every must be 1 with gating")


@dataclass(frozen=True)
class WarmStartConfig:
    """A supervised phase on network-free bot games before self-play (warm_start.py)."""

    bot: str = "uct:1000"
    games: int = 1200
    epochs: float = 2.0


@dataclass(frozen=True)
class PipelineConfig:
    preset: str = "cpu"
    model: ModelConfig = field(default_factory=lambda: preset("small"))
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)
    ladder: LadderConfig | None = None  # the strength ladder, by wall time (None: off)
    warm_start: WarmStartConfig | None = None  # iteration 0 from bot games instead of random weights
    games_per_iteration: int = 200
    steps_per_iteration: int = 300  # fixed, unless replay_ratio > 0
    # > 0: train replay_ratio * (new rows) / batch_size steps per iteration, so each
    # self-play row is sampled about this many times (KataGo keeps it near 4-8).
    replay_ratio: float = 0.0
    min_steps_per_iteration: int = 20
    # > 0: the window grows with the run (KataGo's power law) from this many rows,
    # up to train.window_samples, so the first random-network games leave it soon.
    window_min_samples: int = 0
    window_exponent: float = 0.75
    window_growth: float = 0.4
    min_samples_to_train: int = 1000
    # auto | native | openvino | onnx | torch | trt (popucom.infer.factory); auto: the fastest
    # path here (popucom.infer.choice). A resumed run may change it.
    backend: str = "auto"
    device: str = "cpu"  # cpu | cuda
    inference_threads: int = 0  # 0: all cores
    seed: int = 0

    def __post_init__(self) -> None:
        check_settings(self.to_dict())  # every setting's range (config_check.RULES), wherever it comes from

    def window_size(self, total_rows: int) -> int:
        """Rows in the training window once the run has written `total_rows`:
        c * (1 + beta * ((n / c)^alpha - 1) / alpha) for n > c (KataGo), capped."""
        c, cap = self.window_min_samples, self.train.window_samples
        if c <= 0 or total_rows <= c:
            return cap if c <= 0 else min(c, cap)
        a = self.window_exponent
        return min(cap, round(c * (1 + self.window_growth * ((total_rows / c) ** a - 1) / a)))

    def train_steps(self, new_rows: int) -> int:
        """Training steps for an iteration whose self-play wrote `new_rows` rows."""
        if self.replay_ratio <= 0:
            return self.steps_per_iteration
        return max(self.min_steps_per_iteration, round(self.replay_ratio * new_rows / self.train.batch_size))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> PipelineConfig:
        check_settings(data)  # before the sections are built: their own checks assume the types
        data = dict(data)
        data["model"] = ModelConfig.from_dict(data["model"])
        data["selfplay"] = SelfPlayConfig.from_dict(data["selfplay"])
        data["train"] = TrainConfig.from_dict(data["train"])
        data["evaluation"] = EvalConfig(**data["evaluation"])
        if data.get("warm_start") is not None:
            data["warm_start"] = WarmStartConfig(**data["warm_start"])
        if data.get("ladder") is not None:
            data["ladder"] = LadderConfig.from_dict(data["ladder"])
        return cls(**data)

    def save(self, path: str | Path) -> None:
        write_text_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        try:
            return cls.from_dict(json.loads(Path(path).read_text()))
        except ConfigError as e:
            raise ValueError(f"run config {path}: {e}; fix that setting in the file") from None
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise ValueError(f"run config {path} is unreadable or from another version: {e}") from e


PIPELINE_PRESETS: dict[str, PipelineConfig] = {
    # A 2-core CPU box: the first iteration (self-play, training, export,
    # evaluation) in about ten minutes.
    "cpu": PipelineConfig(
        preset="cpu",
        model=preset("small"),
        selfplay=SelfPlayConfig(
            concurrent_games=100, full_visits=48, fast_visits=12, full_search_prob=0.25, games_per_chunk=50
        ),
        train=TrainConfig(
            batch_size=128, lr=2e-3, warmup_steps=100, total_steps=30_000, window_samples=150_000, compile=True
        ),
        # Each self-play row is sampled ~5 times (was ~13), and the window starts at 20k rows and
        # grows with the run, so the random network's games leave it within the first hour.
        games_per_iteration=200,
        replay_ratio=5.0,
        min_steps_per_iteration=40,
        window_min_samples=20_000,
        steps_per_iteration=250,
        min_samples_to_train=500,
        # 16 games a model cost ~9% of an iteration here, to tell apart models one iteration
        # apart, which they cannot: every 5th model, against the one 5 iterations older.
        evaluation=EvalConfig(openings=4, visits=24, every=5),
        backend="auto",
        # A ladder point (64 games against each of four bots at 100 visits) costs 10-20 minutes
        # here: hourly keeps it near a fifth of the run (the v2 run's choice).
        ladder=LadderConfig(visits=100, games=64, every_minutes=60.0, threads=2),
        # ~9 minutes of uct:1000 games and supervised training give a model that beat
        # uct:2000 17-1-2 at 200 visits; runs from scratch needed over an hour to reach 0.5
        # (docs/learning.md).
        warm_start=WarmStartConfig(bot="uct:1000", games=1200, epochs=2.0),
    ),
    # A GPU box: the base model, big batches.
    "gpu": PipelineConfig(
        preset="gpu",
        model=preset("base"),
        selfplay=SelfPlayConfig(
            concurrent_games=512,
            full_visits=400,
            fast_visits=100,
            full_search_prob=0.25,
            cache_mb=1024,
            search_threads=4,
            games_per_chunk=256,
        ),
        train=TrainConfig(
            batch_size=512, lr=1e-3, warmup_steps=500, total_steps=200_000, window_samples=2_000_000, compile=True
        ),
        games_per_iteration=4096,
        steps_per_iteration=2000,
        replay_ratio=6.0,
        window_min_samples=250_000,
        min_samples_to_train=20_000,
        evaluation=EvalConfig(openings=32, visits=200),
        backend="torch",
        device="cuda",
        ladder=LadderConfig(visits=200, games=128, every_minutes=30.0, threads=4),
        warm_start=WarmStartConfig(bot="uct:1000", games=4000, epochs=2.0),
    ),
    # Tests: minutes-sized end to end.
    "tiny": PipelineConfig(
        preset="tiny",
        model=preset("tiny"),
        selfplay=SelfPlayConfig(
            concurrent_games=12,
            full_visits=12,
            fast_visits=4,
            full_search_prob=0.5,
            max_random_plies=6,
            cache_mb=8,
            games_per_chunk=6,
        ),
        train=TrainConfig(batch_size=32, lr=3e-3, warmup_steps=5, total_steps=1000, window_samples=20_000),
        games_per_iteration=12,
        steps_per_iteration=8,
        min_samples_to_train=10,
        evaluation=EvalConfig(openings=1, visits=4),
        backend="onnx",
        ladder=LadderConfig(
            visits=2,
            games=2,
            opponents=("greedy",),
            calibration=(("random", "greedy"),),
            calibration_games=2,
            every_minutes=0.0,
        ),
    ),
}


def pipeline_preset(name: str, **overrides: object) -> PipelineConfig:
    if name not in PIPELINE_PRESETS:
        raise ValueError(f"unknown pipeline preset '{name}' (choose from {', '.join(PIPELINE_PRESETS)})")
    return dataclasses.replace(PIPELINE_PRESETS[name], **overrides)
