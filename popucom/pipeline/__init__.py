"""The run_pipeline loop: self-play -> train -> export -> (TensorRT engine) -> evaluate, resumable."""

from .config import PIPELINE_PRESETS, PipelineConfig
from .run import run_pipeline

__all__ = ["PIPELINE_PRESETS", "PipelineConfig", "run_pipeline"]
