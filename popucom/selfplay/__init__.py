"""Self-play: concurrent games through the batched search, KataGo-style targets, adaptive komi."""

from .komi import KomiSampler
from .worker import SelfPlayConfig, SelfPlayStats, run_selfplay

__all__ = ["KomiSampler", "SelfPlayConfig", "SelfPlayStats", "run_selfplay"]
