"""Training's settings: batch size, the lr schedule, AdamW's, the replay window's size and the
speed switches. Read wherever a run's config is, so it imports nothing but the standard
library; the trainer that follows them is trainer.py."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class TrainConfig:
    batch_size: int = 256
    lr: float = 2e-3
    warmup_steps: int = 100
    total_steps: int = 20_000  # where the cosine reaches min_lr_ratio * lr
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.05
    adam_betas: tuple[float, float] = (0.9, 0.95)
    grad_clip: float = 1.0
    window_samples: int = 500_000
    val_fraction: float = 0.1
    seed: int = 0
    # torch.compile the training forward and its backward: the network is many small
    # operations, which the compiler fuses into a much faster step. The first compile on a
    # machine is slow; later ones, in new processes too, come from torch's on-disk cache in
    # seconds (docs/benchmarks.md, "Training step"). A speed setting, not a target one: a run
    # may change it on resume.
    compile: bool = False
    # bf16 autocast of the training forward and backward on a CPU with bf16 arithmetic
    # (popucom.infer.precision.cpu_has_bf16; CUDA always uses it): a faster compiled step
    # (bench/train_step.py; docs/benchmarks.md, "Training step").
    # Off until the learning benchmark shows it learns as well per hour: unlike `compile`, it
    # changes the numbers the optimiser sees.
    cpu_bf16: bool = False

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        data = dict(data)
        if "adam_betas" in data:
            data["adam_betas"] = tuple(data["adam_betas"])
        return cls(**data)
