"""Pipeline configuration and its presets. The resolved config is written to
the run directory on the first start and read back on every resume."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..fileio import write_text_atomic
from ..nn.config import ModelConfig, preset
from ..selfplay.worker import SelfPlayConfig
from ..train.trainer import TrainConfig


@dataclass(frozen=True)
class EvalConfig:
    openings: int = 4  # each played twice, colours swapped, against each opponent
    opening_plies: int = 4
    visits: int = 24
    baseline: str = "greedy"  # a fixed network-free yardstick
    gating: bool = False  # keep the previous model unless the new one passes an SPRT
    sprt_elo0: float = 0.0
    sprt_elo1: float = 30.0
    sprt_alpha: float = 0.05
    sprt_beta: float = 0.05


@dataclass(frozen=True)
class PipelineConfig:
    preset: str = "cpu"
    model: ModelConfig = field(default_factory=lambda: preset("small"))
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)
    games_per_iteration: int = 200
    steps_per_iteration: int = 300
    min_samples_to_train: int = 1000
    backend: str = "torch"  # torch | onnx | trt
    device: str = "cpu"  # cpu | cuda
    inference_threads: int = 0  # 0: all cores
    seed: int = 0

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> PipelineConfig:
        data = dict(data)
        data["model"] = ModelConfig.from_dict(data["model"])
        data["selfplay"] = SelfPlayConfig(**data["selfplay"])
        data["train"] = TrainConfig.from_dict(data["train"])
        data["evaluation"] = EvalConfig(**data["evaluation"])
        return cls(**data)

    def save(self, path: str | Path) -> None:
        write_text_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        try:
            return cls.from_dict(json.loads(Path(path).read_text()))
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise ValueError(f"run config {path} is unreadable or from another version: {e}") from e


PIPELINE_PRESETS: dict[str, PipelineConfig] = {
    # A 2-core CPU box: the first iteration (self-play, training, export,
    # evaluation) in about ten minutes.
    "cpu": PipelineConfig(
        preset="cpu", model=preset("small"),
        selfplay=SelfPlayConfig(concurrent_games=100, full_visits=48, fast_visits=12, full_search_prob=0.25,
                                leaves_per_game=2, games_per_chunk=50),
        train=TrainConfig(batch_size=128, lr=2e-3, warmup_steps=100, total_steps=30_000, window_samples=250_000),
        games_per_iteration=200, steps_per_iteration=250, min_samples_to_train=500,
        # torch ran 830 network evaluations/s against onnxruntime's 677 on the 2-core CI CPU
        # (bench/selfplay.py, same run); models are exported to ONNX every iteration all the same.
        evaluation=EvalConfig(openings=4, visits=24), backend="torch"),
    # A GPU box: the base model, big batches.
    "gpu": PipelineConfig(
        preset="gpu", model=preset("base"),
        selfplay=SelfPlayConfig(concurrent_games=512, full_visits=400, fast_visits=100, full_search_prob=0.25,
                                leaves_per_game=2, cache_mb=1024, search_threads=4, games_per_chunk=256),
        train=TrainConfig(batch_size=512, lr=1e-3, warmup_steps=500, total_steps=200_000, window_samples=2_000_000),
        games_per_iteration=4096, steps_per_iteration=2000, min_samples_to_train=20_000,
        evaluation=EvalConfig(openings=32, visits=200), backend="torch", device="cuda"),
    # Tests: minutes-sized end to end.
    "tiny": PipelineConfig(
        preset="tiny", model=preset("tiny"),
        selfplay=SelfPlayConfig(concurrent_games=12, full_visits=12, fast_visits=4, full_search_prob=0.5,
                                max_random_plies=6, leaves_per_game=2, cache_mb=8, games_per_chunk=6),
        train=TrainConfig(batch_size=32, lr=3e-3, warmup_steps=5, total_steps=1000, window_samples=20_000),
        games_per_iteration=12, steps_per_iteration=8, min_samples_to_train=10,
        evaluation=EvalConfig(openings=1, visits=4), backend="onnx"),
}


def pipeline_preset(name: str, **overrides: object) -> PipelineConfig:
    if name not in PIPELINE_PRESETS:
        raise ValueError(f"unknown pipeline preset '{name}' (choose from {', '.join(PIPELINE_PRESETS)})")
    return dataclasses.replace(PIPELINE_PRESETS[name], **overrides)
