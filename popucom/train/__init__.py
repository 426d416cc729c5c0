"""Training: the replay window over shard files, losses, Muon + AdamW, checkpoints."""

from .trainer import Checkpoint, TrainConfig, Trainer, load_checkpoint, load_network_with_checkpoint
from .window import Batch, ReplayWindow

__all__ = [
    "Batch",
    "Checkpoint",
    "ReplayWindow",
    "TrainConfig",
    "Trainer",
    "load_checkpoint",
    "load_network_with_checkpoint",
]
