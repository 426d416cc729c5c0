"""The all-attention policy/value network (PoPE, mHC, attention residuals) and its export.

The network (and torch) loads on first use of `PopucomNet`: the config and the output spec
(outputs.py) are read by inference code that never builds a network.
"""

from .config import PRESETS, LossWeights, ModelConfig, preset

__all__ = ["PRESETS", "LossWeights", "ModelConfig", "PopucomNet", "preset"]


def __getattr__(name: str):
    if name == "PopucomNet":
        from .model import PopucomNet

        return PopucomNet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
