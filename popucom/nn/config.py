"""Model configuration and the named presets.

A resolved config travels with every checkpoint and exported model; the
feature version and the preset are checked when either is loaded.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .. import _core


@dataclass(frozen=True)
class LossWeights:
    """One weight per head, named by the head's `weight` in outputs.HEADS, plus the loss kinds'
    options (`<weight>_huber_delta`)."""

    policy: float = 1.0
    # KataGo's auxiliary target pi^(1/4). Its cross-entropy is small (a flat target), so
    # KataGo and the reference project weight it 8 to make it count.
    soft_policy: float = 8.0
    value: float = 1.0  # win/draw/loss cross-entropy
    # Huber on the final margin in floors, width `score_huber_delta`. At 0.02 the score
    # term sent the trunk 4x the policy's gradient at initialisation; KataGo's weight
    # is ~0.0015 at a ~12-point width.
    score: float = 0.002
    score_huber_delta: float = 12.0
    ownership: float = 0.25  # mean squared error of the final floor map


@dataclass(frozen=True)
class ModelConfig:
    preset: str = "custom"
    d_model: int = 64
    layers: int = 4  # transformer blocks; each has an attention and an MLP sub-layer
    heads: int = 4
    mlp_ratio: int = 3
    attn_res: bool = True  # Full attention residuals over all earlier sub-layer outputs
    mhc: bool = False  # manifold-constrained hyper-connections
    mhc_streams: int = 4
    sinkhorn_iters: int = 10
    head_hidden: int = 64  # width of the value/score head MLPs
    # 1.0: with attention residuals a 0.1 start leaves the trunk an almost per-cell linear
    # model (sub-layer outputs 15x smaller than the embedding) and learned slower in A/B runs.
    layer_scale_init: float = 1.0
    # PoPE frequencies for a 9-cell axis, geometric from neighbour scale down to a
    # near-zero one (1 degree per cell) so some components attend by content at any distance.
    pope_theta_max: float = 1.5707963267948966  # pi / 2 per cell
    pope_theta_min: float = 0.017453292519943295  # 2 pi / 360 per cell
    # PoPE is relative and the input planes are translation-invariant on an empty board:
    # a learned per-cell embedding tells the network where the edges are.
    absolute_positions: bool = True
    feature_version: int = _core.FEATURE_VERSION
    input_planes: int = _core.NUM_FEATURE_PLANES
    loss_weights: LossWeights = field(default_factory=LossWeights)

    def __post_init__(self) -> None:
        if self.d_model % self.heads:
            raise ValueError(f"d_model {self.d_model} is not a multiple of heads {self.heads}")
        if (self.d_model // self.heads) % 2:
            raise ValueError("the head width must be even (half row phases, half column phases)")
        if self.mhc and self.mhc_streams < 2:
            raise ValueError("mHC needs at least 2 streams")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        data = dict(data)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown model config keys: {sorted(unknown)}")
        if isinstance(data.get("loss_weights"), dict):
            data["loss_weights"] = LossWeights(**data["loss_weights"])
        return cls(**data)


# tiny: tests (< 100k parameters). small: the CPU default (ONNX < 5 MB).
# base: GPU, comparable to the reference's ~2.3M parameters.
PRESETS: dict[str, ModelConfig] = {
    "tiny": ModelConfig(preset="tiny", d_model=32, layers=2, heads=2, mlp_ratio=2, head_hidden=32),
    "small": ModelConfig(preset="small", d_model=64, layers=4, heads=4, mlp_ratio=3, head_hidden=64),
    "base": ModelConfig(preset="base", d_model=192, layers=6, heads=6, mlp_ratio=4, head_hidden=128),
}


def preset(name: str, **overrides: object) -> ModelConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown model preset '{name}' (choose from {', '.join(PRESETS)})")
    return dataclasses.replace(PRESETS[name], **overrides)
