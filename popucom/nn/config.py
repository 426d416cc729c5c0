"""Model configuration and the named presets.

A resolved config travels with every checkpoint and exported model; the
feature version and the preset are checked when either is loaded. Every field is
bounded (FIELD_LIMITS): a config read from a file is a claim the file makes, and
an unbounded width or depth would have a loader allocate whatever it asks for.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, field

from .. import _core

# Inclusive ranges of the integer fields, each far above the largest preset's value ("base":
# d_model 192, 6 layers, 6 heads, mlp_ratio 4, head_hidden 128) so that no real network meets
# them. Together they still allow ~44 GB of parameters, so loaders also cap the total
# (popucom.nn.checkpoint.MAX_MODEL_BYTES).
FIELD_LIMITS: dict[str, tuple[int, int]] = {
    "d_model": (2, 2048),
    "layers": (1, 64),
    "heads": (1, 64),
    "mlp_ratio": (1, 16),
    "mhc_streams": (1, 16),
    "sinkhorn_iters": (0, 100),
    "head_hidden": (1, 4096),
    "input_planes": (1, 1024),
    "feature_version": (0, 1_000_000),
}
# Open-closed ranges (low, high] of the float fields: angles are radians per cell.
FLOAT_LIMITS: dict[str, tuple[float, float]] = {
    "layer_scale_init": (0.0, 100.0),
    "pope_theta_max": (0.0, 2 * math.pi),
    "pope_theta_min": (0.0, 2 * math.pi),
}
BOOL_FIELDS = ("attn_res", "mhc", "absolute_positions", "value_error_head")
MAX_LOSS_WEIGHT = 1e6
MAX_PRESET_NAME = 64


def _check_int(name: str, value: object) -> None:
    low, high = FIELD_LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"model config {name} must be a whole number from {low} to {high}, got {value!r:.40}")
    if not low <= value <= high:
        raise ValueError(f"model config {name} must be from {low} to {high}, got {value}")


def _check_float(name: str, value: object, low: float, high: float, closed_low: bool = False) -> None:
    """`value` a real number in (low, high] ([low, high] when closed_low), or ValueError naming `name`."""
    real = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    above = real and (value >= low if closed_low else value > low)
    if not (above and value <= high):
        bracket = "[" if closed_low else "("
        raise ValueError(f"{name} must be a finite number in {bracket}{low}, {high}], got {value!r:.40}")


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
    # Huber on the value head's squared error against the short-term value (a number in
    # [0, 4]); the reference project weights it 1 at width 1. Lower here: the head starts
    # from nothing on a trained trunk (a network gaining it) and must not pull the trunk.
    value_error: float = 0.25
    value_error_huber_delta: float = 1.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check_float(f"loss weight {f.name}", getattr(self, f.name), 0.0, MAX_LOSS_WEIGHT, closed_low=True)
            object.__setattr__(self, f.name, float(getattr(self, f.name)))


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
    # The value-error head (outputs.HEADS): the search's uncertainty weights. Off in a config
    # that does not name it, so every network from before it loads as it was.
    value_error_head: bool = False
    feature_version: int = _core.FEATURE_VERSION
    input_planes: int = _core.NUM_FEATURE_PLANES
    loss_weights: LossWeights = field(default_factory=LossWeights)

    def __post_init__(self) -> None:
        self._check_ranges()
        if self.d_model % self.heads:
            raise ValueError(f"d_model {self.d_model} is not a multiple of heads {self.heads}")
        if (self.d_model // self.heads) % 2:
            raise ValueError("the head width must be even (half row phases, half column phases)")
        if self.mhc and self.mhc_streams < 2:
            raise ValueError("mHC needs at least 2 streams")

    def _check_ranges(self) -> None:
        """Types and bounds of every field (FIELD_LIMITS, FLOAT_LIMITS), each error naming its field."""
        if not isinstance(self.preset, str) or len(self.preset) > MAX_PRESET_NAME:
            raise ValueError(f"model config preset must be a name of at most {MAX_PRESET_NAME} characters")
        for name in FIELD_LIMITS:
            _check_int(name, getattr(self, name))
        for name, (low, high) in FLOAT_LIMITS.items():
            _check_float(f"model config {name}", getattr(self, name), low, high)
            # A whole number from a hand-written JSON (1 for 1.0) would make an integer tensor.
            object.__setattr__(self, name, float(getattr(self, name)))
        for name in BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"model config {name} must be true or false, got {getattr(self, name)!r:.40}")
        if not isinstance(self.loss_weights, LossWeights):
            raise ValueError(f"model config loss_weights must be a table of weights, got {self.loss_weights!r:.40}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        data = dict(data)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown model config keys: {sorted(map(str, unknown))[:5]}")
        if isinstance(data.get("loss_weights"), dict):
            weights = data["loss_weights"]
            unknown_weights = set(weights) - {f.name for f in dataclasses.fields(LossWeights)}
            if unknown_weights:
                raise ValueError(f"unknown loss weights: {sorted(map(str, unknown_weights))[:5]}")
            data["loss_weights"] = LossWeights(**weights)
        return cls(**data)


# tiny: tests (< 100k parameters). small: the CPU default (ONNX < 5 MB).
# base: GPU, comparable to the reference's ~2.3M parameters.
PRESETS: dict[str, ModelConfig] = {
    "tiny": ModelConfig(
        preset="tiny", d_model=32, layers=2, heads=2, mlp_ratio=2, head_hidden=32, value_error_head=True
    ),
    "small": ModelConfig(
        preset="small", d_model=64, layers=4, heads=4, mlp_ratio=3, head_hidden=64, value_error_head=True
    ),
    "base": ModelConfig(
        preset="base", d_model=192, layers=6, heads=6, mlp_ratio=4, head_hidden=128, value_error_head=True
    ),
}


def preset(name: str, **overrides: object) -> ModelConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown model preset '{name}' (choose from {', '.join(PRESETS)})")
    return dataclasses.replace(PRESETS[name], **overrides)
