"""Self-play: concurrent games through the batched search, KataGo-style targets, adaptive komi.

Each name loads with its module on first use, so that the settings (config.py) are read without
numpy or the search (popucom.lazy_exports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .config import SelfPlayConfig
    from .komi import KomiSampler
    from .worker import SelfPlayStats, run_selfplay

__all__ = [
    "KomiSampler",
    "SelfPlayConfig",
    "SelfPlayStats",
    "run_selfplay",
]

__getattr__, __dir__ = lazy_exports(
    __name__, {"SelfPlayConfig": "config", "KomiSampler": "komi", "SelfPlayStats": "worker", "run_selfplay": "worker"}
)
