"""The run_pipeline loop: self-play -> train -> export -> (TensorRT engine) -> evaluate, resumable.

Each name loads with its module on first use, so that a run's config (config.py) is read
without torch (popucom.lazy_exports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .config import PIPELINE_PRESETS, PipelineConfig
    from .run import run_pipeline

__all__ = [
    "PIPELINE_PRESETS",
    "PipelineConfig",
    "run_pipeline",
]

__getattr__, __dir__ = lazy_exports(
    __name__, {"PIPELINE_PRESETS": "config", "PipelineConfig": "config", "run_pipeline": "run"}
)
