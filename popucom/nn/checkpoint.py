"""The network stored in a checkpoint: read, checked against this build, and built.

Inference (the engine, the GUI, the arena) loads a network from a training checkpoint
through here, so it never imports the training stack; the trainer reads the rest of the
checkpoint (optimizer, schedule, RNG states) on top of read_model_state().
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import _core
from .checkpoint_file import read_checkpoint
from .config import ModelConfig
from .model import PopucomNet


def describe_differences(a: dict, b: dict, prefix: str = "") -> list[str]:
    """Human-readable differences between two nested config dicts, `a` the checkpoint's."""
    diffs = []
    for key in sorted(set(a) | set(b)):
        if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            diffs += describe_differences(a[key], b[key], f"{prefix}{key}.")
        elif a.get(key) != b.get(key):
            diffs.append(f"{prefix}{key}: checkpoint has {a.get(key)!r}, requested {b.get(key)!r}")
    return diffs


def require_keys(path: Path, state: dict[str, Any], kinds: tuple[tuple[str, type], ...]) -> None:
    for key, kind in kinds:
        if not isinstance(state.get(key), kind):
            raise ValueError(f"checkpoint {path} is incomplete: '{key}' is missing or not a {kind.__name__}")


def read_model_state(
    path: str | Path, expect: ModelConfig | None = None, required: tuple[tuple[str, type], ...] = ()
) -> tuple[dict[str, Any], ModelConfig]:
    """The checkpoint's whole state and its model config. Reads without running code from the
    file (checkpoint_file.py); raises ValueError if it is unsafe, corrupt, lacks the model or
    one of `required`, was encoded for another feature version, or differs from `expect`."""
    path = Path(path)
    state = read_checkpoint(path)
    require_keys(path, state, (("model_config", dict), *required, ("model", dict)))
    try:
        model_config = ModelConfig.from_dict(state["model_config"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"checkpoint {path} has a model config this build cannot read: {e}") from None
    if model_config.feature_version != _core.FEATURE_VERSION:
        raise ValueError(
            f"checkpoint {path} was trained on feature version {model_config.feature_version}, "
            f"this build encodes version {_core.FEATURE_VERSION}"
        )
    if expect is not None:
        diffs = describe_differences(model_config.to_dict(), expect.to_dict())
        if diffs:
            raise ValueError(f"checkpoint {path} is for a different model:\n  " + "\n  ".join(diffs))
    return state, model_config


def network_from_state(path: str | Path, state: dict[str, Any], model_config: ModelConfig) -> PopucomNet:
    net = PopucomNet(model_config)
    try:
        net.load_state_dict(state["model"])
    except RuntimeError as e:  # names or shapes that do not fit the model its config describes
        raise ValueError(f"checkpoint {path} does not fit its own model config: {e}") from None
    return net.eval()


def load_network(path: str | Path, expect: ModelConfig | None = None) -> PopucomNet:
    """The network of a checkpoint, in eval mode."""
    state, model_config = read_model_state(path, expect)
    return network_from_state(path, state, model_config)
