"""Training: the replay window over shard files, losses, Muon + AdamW, checkpoints.

Each name loads with its module on first use, so that the settings (config.py) are read without
torch (popucom.lazy_exports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .config import TrainConfig
    from .trainer import Checkpoint, Trainer, load_checkpoint, load_network_with_checkpoint
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "TrainConfig": "config",
        "Checkpoint": "trainer",
        "Trainer": "trainer",
        "load_checkpoint": "trainer",
        "load_network_with_checkpoint": "trainer",
        "Batch": "window",
        "ReplayWindow": "window",
    },
)
