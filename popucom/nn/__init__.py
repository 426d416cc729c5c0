"""The all-attention policy/value network (PoPE, mHC, attention residuals) and its export."""

from .config import PRESETS, LossWeights, ModelConfig, preset
from .model import PopucomNet

__all__ = ["PRESETS", "LossWeights", "ModelConfig", "PopucomNet", "preset"]
