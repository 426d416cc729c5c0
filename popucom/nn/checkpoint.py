"""The network stored in a checkpoint: read, checked against this build, and built.

Inference (the engine, the GUI, the arena) loads a network from a training checkpoint
through here, so it never imports the training stack; the trainer reads the rest of the
checkpoint (optimizer, schedule, RNG states) on top of read_model_state().

The model config inside a file is only a claim, and its sha256 proves nothing (anyone can
recompute it), so read_model_state() compares the tensors the config declares with those the
file stores, names, shapes and dtypes, before anything is built at full size: the declared ones
come from the network built on torch's "meta" device, which allocates no memory. A network
over MAX_MODEL_BYTES is refused outright.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

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


# 1 GiB of fp32 parameters (268M): ~100x the "base" preset's 2.7M, and a bound on what loading
# any checkpoint may allocate for its network.
MAX_MODEL_BYTES = 1 << 30


def declared_tensors(model_config: ModelConfig) -> dict[str, tuple[tuple[int, ...], torch.dtype]]:
    """The state dict's entries (name: shape, dtype) of the network `model_config` describes,
    found without allocating it (a meta-device build takes no memory for the tensors)."""
    with torch.device("meta"):
        net = PopucomNet(model_config)
    return {name: (tuple(t.shape), t.dtype) for name, t in net.state_dict().items()}


def declared_bytes(declared: dict[str, tuple[tuple[int, ...], torch.dtype]]) -> int:
    total = 0
    for shape, dtype in declared.values():
        count = 1
        for size in shape:
            count *= size
        total += count * dtype.itemsize
    return total


def check_stored_model(path: Path, model_config: ModelConfig, stored: dict[str, Any]) -> None:
    """ValueError unless `stored` (the file's model tensors) is exactly what `model_config`
    declares, and the network stays under MAX_MODEL_BYTES; nothing is allocated for it."""
    try:
        declared = declared_tensors(model_config)
    except (RuntimeError, TypeError, ValueError) as e:  # a config within bounds that the layers still refuse
        raise ValueError(f"checkpoint {path}: no network can be built from its model config ({e})") from None
    size = declared_bytes(declared)
    if size > MAX_MODEL_BYTES:
        raise ValueError(
            f"checkpoint {path}: its model config (d_model {model_config.d_model}, layers {model_config.layers}, "
            f"mlp_ratio {model_config.mlp_ratio}) declares {size / 2**20:.0f} MiB of parameters in {len(declared)} "
            f"tensors, more than the {MAX_MODEL_BYTES >> 20} MiB any popucom network may take"
        )
    missing = sorted(set(declared) - set(stored))
    extra = sorted(set(stored) - set(declared))
    if missing or extra:
        said = [f"lacks {', '.join(missing[:3])}"] if missing else []
        said += [f"has extra {', '.join(extra[:3])}"] if extra else []
        raise ValueError(f"checkpoint {path} does not fit its own model config: the file {' and '.join(said)}")
    for name, (shape, dtype) in declared.items():
        found = _misfit(stored[name], shape, dtype)
        if found:
            raise ValueError(
                f"checkpoint {path} does not fit its own model config (d_model {model_config.d_model}, "
                f"layers {model_config.layers}): tensor {name} should have shape {list(shape)} {dtype}, "
                f"the file stores {found}"
            )


def _misfit(tensor: object, shape: tuple[int, ...], dtype: torch.dtype) -> str | None:
    """What the file stores instead of a tensor of `shape` and `dtype`, or None when it fits."""
    if not isinstance(tensor, torch.Tensor):
        return type(tensor).__name__
    if tuple(tensor.shape) != shape or tensor.dtype != dtype:
        return f"{list(tensor.shape)} {tensor.dtype}"
    return None


def require_keys(path: Path, state: dict[str, Any], kinds: tuple[tuple[str, type], ...]) -> None:
    for key, kind in kinds:
        if not isinstance(state.get(key), kind):
            raise ValueError(f"checkpoint {path} is incomplete: '{key}' is missing or not a {kind.__name__}")


def read_model_state(
    path: str | Path, expect: ModelConfig | None = None, required: tuple[tuple[str, type], ...] = ()
) -> tuple[dict[str, Any], ModelConfig]:
    """The checkpoint's whole state and its model config. Reads without running code from the
    file (checkpoint_file.py); raises ValueError if it is unsafe, corrupt, lacks the model or
    one of `required`, was encoded for another feature version, differs from `expect`, or stores
    other model tensors than its config declares (check_stored_model)."""
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
    check_stored_model(path, model_config, state["model"])
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
