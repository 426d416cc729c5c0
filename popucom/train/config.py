"""Training's settings: batch size, the lr schedule, AdamW's, the replay window's size and the
speed switches. Read wherever a run's config is, so it imports nothing but the standard
library; the trainer that follows them is trainer.py."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..setting import BETAS, FLAG, SEED, number, setting, whole


@dataclass(frozen=True)
class TrainConfig:
    batch_size: int = setting(256, whole(1, 1 << 16))
    lr: float = setting(2e-3, number(0, 1, low_open=True))
    warmup_steps: int = setting(100, whole(0, "train.total_steps", " (below train.total_steps)", high_open=True))
    total_steps: int = setting(20_000, whole(1))  # where the cosine reaches min_lr_ratio * lr
    min_lr_ratio: float = setting(0.1, number(0, 1))
    weight_decay: float = setting(0.05, number(0, 10))
    adam_betas: tuple[float, float] = setting((0.9, 0.95), BETAS)
    grad_clip: float = setting(1.0, number(0, low_open=True))
    window_samples: int = setting(500_000, whole(1))
    val_fraction: float = setting(0.1, number(0, 0.5))
    seed: int = setting(0, SEED)
    # torch.compile the training forward and its backward: the network is many small
    # operations, which the compiler fuses into a much faster step. The first compile on a
    # machine is slow; later ones, in new processes too, come from torch's on-disk cache in
    # seconds (docs/benchmarks.md, "Training step"). A speed setting, not a target one: a run
    # may change it on resume.
    compile: bool = setting(False, FLAG)
    # bf16 autocast of the training forward and backward on a CPU with bf16 arithmetic
    # (popucom.infer.precision.cpu_has_bf16; CUDA always uses it): a faster compiled step
    # (bench/train_step.py; docs/benchmarks.md, "Training step").
    # Off until the learning benchmark shows it learns as well per hour: unlike `compile`, it
    # changes the numbers the optimiser sees.
    cpu_bf16: bool = setting(False, FLAG)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        data = dict(data)
        if "adam_betas" in data:
            data["adam_betas"] = tuple(data["adam_betas"])
        return cls(**data)
