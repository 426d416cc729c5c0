"""The checkpoint file format: safe to load from an untrusted source, and checked.

A checkpoint travels (shipped weights are downloaded and passed around), so loading
one must never run code. The file is a `torch.save` of exactly

    {"meta": str, "sha256": str, "tensors": {name: torch.Tensor}}

and is read with `torch.load(..., weights_only=True)`, which refuses any pickled
object other than plain containers, numbers, strings and tensors, before running
anything. The nested state (configs, step, optimizer states, RNG states) lives in
`meta`, a JSON string in which every tensor is replaced by a reference into
`tensors`; numpy arrays travel as raw bytes and tuples and non-string dict keys are
tagged so that the state comes back exactly as it was saved.

`sha256` covers `meta` and every tensor (name, dtype, shape, bytes): a flipped byte
anywhere in the payload is reported, not trained on. It proves nothing about intent (anyone
can recompute it), so what the file declares is bounded before it is believed: the file's size
(MAX_CHECKPOINT_BYTES), its archive (the uncompressed zip torch.save writes, whose entries
cannot hold more than the file does: a deflated entry would let a small file unpack to
gigabytes), and the network its model config declares (popucom.nn.checkpoint).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..fileio import write_bytes_atomic

CHECKPOINT_FORMAT = "popucom-checkpoint"
# 1: a full pickle (loaded with weights_only=False, so a file could run code).
# 2: weights_only-loadable tensors + JSON metadata + sha256.
CHECKPOINT_VERSION = 2

# The largest checkpoint file read: a network at popucom.nn.checkpoint.MAX_MODEL_BYTES (1 GiB)
# with its optimizer states (up to two more copies) and slack.
MAX_CHECKPOINT_BYTES = 4 << 30

_TENSOR, _NDARRAY, _TUPLE, _DICT = "__tensor__", "__ndarray__", "__tuple__", "__dict__"


class CheckpointFileError(ValueError):
    """A checkpoint file is unreadable, unsafe, corrupt or of another version."""


def _encode(value: Any, path: str, tensors: dict[str, torch.Tensor]) -> Any:
    """A JSON-able copy of `value`, its tensors and arrays moved into `tensors` under their path."""
    if isinstance(value, torch.Tensor):
        tensors[path] = value.detach().cpu()
        return {_TENSOR: path}
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        tensors[path] = torch.from_numpy(data.view(np.uint8).reshape(-1).copy())
        return {_NDARRAY: path, "dtype": data.dtype.str, "shape": list(data.shape)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(v, f"{path}/{i}", tensors) for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [_encode(v, f"{path}/{i}", tensors) for i, v in enumerate(value)]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: _encode(v, f"{path}/{k}", tensors) for k, v in value.items()}
        # Optimizer states key parameters by int: keep the keys' types.
        return {
            _DICT: [
                [_encode(k, f"{path}/key{i}", tensors), _encode(v, f"{path}/{i}", tensors)]
                for i, (k, v) in enumerate(value.items())
            ]
        }
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"checkpoint state at '{path}' holds a {type(value).__name__}, which the file format cannot store")


def _decode(value: Any, tensors: dict[str, torch.Tensor]) -> Any:
    if isinstance(value, list):
        return [_decode(v, tensors) for v in value]
    if not isinstance(value, dict):
        return value
    if _TENSOR in value:
        return tensors[value[_TENSOR]]
    if _NDARRAY in value:
        raw = tensors[value[_NDARRAY]].numpy().tobytes()
        return np.frombuffer(raw, dtype=np.dtype(value["dtype"])).reshape(value["shape"]).copy()
    if _TUPLE in value:
        return tuple(_decode(v, tensors) for v in value[_TUPLE])
    if _DICT in value:
        return {_hashable(_decode(k, tensors)): _decode(v, tensors) for k, v in value[_DICT]}
    return {k: _decode(v, tensors) for k, v in value.items()}


def _hashable(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key


def payload_sha256(meta: str, tensors: dict[str, torch.Tensor]) -> str:
    """sha256 of the metadata and of every tensor's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256(meta.encode("utf-8"))
    for name in sorted(tensors):
        t = tensors[name]
        h.update(f"\0{name}\0{t.dtype}\0{list(t.shape)}\0".encode())
        h.update(t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def checkpoint_bytes(state: dict[str, Any]) -> bytes:
    """The file contents for `state` (a dict of tensors, arrays, containers and JSON scalars)."""
    tensors: dict[str, torch.Tensor] = {}
    tree = _encode({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **state}, "", tensors)
    meta = json.dumps(tree)
    buffer = io.BytesIO()
    torch.save({"meta": meta, "sha256": payload_sha256(meta, tensors), "tensors": tensors}, buffer)
    return buffer.getvalue()


def write_checkpoint(path: str | os.PathLike, state: dict[str, Any]) -> Path:
    """Writes `state` atomically in the safe format."""
    return write_bytes_atomic(path, checkpoint_bytes(state))


def _checkpoint_bytes(path: Path) -> bytes:
    """The file's bytes, once its size is known to be within a checkpoint's."""
    try:
        if path.stat().st_size > MAX_CHECKPOINT_BYTES:
            raise CheckpointFileError(
                f"checkpoint {path} is {path.stat().st_size / 2**30:.1f} GiB, more than the "
                f"{MAX_CHECKPOINT_BYTES >> 30} GiB a popucom checkpoint may take"
            )
        return path.read_bytes()
    except OSError as e:
        raise CheckpointFileError(f"cannot read checkpoint {path}: {e.strerror or e}") from e


def _unpickled_safely(path: Path, raw: bytes) -> Any:
    """What the pickle holds, read with weights_only=True: only containers, scalars and tensors
    are unpickled; any other global (os.system, a class, a numpy array) is refused before it is
    called."""
    try:
        with warnings.catch_warnings():  # torch warns about foreign pickle protocols; we answer with an error
            warnings.simplefilter("ignore")
            return torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        if "weights only" in str(e).lower() or "weights_only" in str(e):
            raise CheckpointFileError(
                f"checkpoint {path} holds pickled Python objects, not only tensors and plain data; refused "
                f"without loading it. It is either a version-1 popucom checkpoint (re-create it, or convert a "
                f"file you trust with popucom.nn.checkpoint_file.upgrade_trusted_checkpoint) or not a "
                f"safe file"
            ) from None
        raise CheckpointFileError(f"checkpoint {path} is corrupt or truncated ({e})") from None
    except Exception as e:  # noqa: BLE001 - nothing ran; any failure of the reader means a bad file
        raise CheckpointFileError(f"checkpoint {path} is corrupt or truncated ({type(e).__name__}: {e})") from None


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """The state saved by write_checkpoint. Never runs code from the file: raises CheckpointFileError
    for an unsafe or old-format pickle, a failed checksum, or a file that is not a checkpoint."""
    path = Path(path)
    raw = _checkpoint_bytes(path)
    _check_archive(path, raw)
    stored = _unpickled_safely(path, raw)
    if isinstance(stored, dict) and stored.get("format") == CHECKPOINT_FORMAT:
        raise CheckpointFileError(
            f"checkpoint {path} has version {stored.get('version')}, this build reads "
            f"version {CHECKPOINT_VERSION}; re-create it"
        )
    if not (
        isinstance(stored, dict)
        and set(stored) == {"meta", "sha256", "tensors"}
        and isinstance(stored["meta"], str)
        and isinstance(stored["tensors"], dict)
    ):
        raise CheckpointFileError(f"{path} is not a popucom checkpoint")
    tensors = stored["tensors"]
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in tensors.items()):
        raise CheckpointFileError(f"{path} is not a popucom checkpoint (its tensor table holds other objects)")
    if payload_sha256(stored["meta"], tensors) != stored["sha256"]:
        raise CheckpointFileError(f"checkpoint {path} is corrupt: its contents do not match the stored sha256")
    try:
        state = _decode(json.loads(stored["meta"]), tensors)
    except (ValueError, KeyError, TypeError, RecursionError) as e:  # RecursionError: nesting deeper than any state
        raise CheckpointFileError(f"checkpoint {path} has corrupt metadata ({type(e).__name__}: {e})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointFileError(f"{path} is not a popucom checkpoint")
    if state.get("version") != CHECKPOINT_VERSION:
        raise CheckpointFileError(
            f"checkpoint {path} has version {state.get('version')}, this build reads version {CHECKPOINT_VERSION}"
        )
    return state


def _check_archive(path: Path, raw: bytes) -> None:
    """CheckpointFileError unless `raw` is an uncompressed zip archive (what torch.save writes)
    whose entries together hold no more bytes than the file: torch would otherwise inflate a
    deflated entry, or allocate a legacy-format storage of any size the file names, before
    anything else is checked."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            entries = archive.infolist()
    except Exception as e:  # noqa: BLE001 - zipfile raises several kinds for a damaged directory
        raise CheckpointFileError(
            f"checkpoint {path} is corrupt or truncated, or not a checkpoint: not the zip archive torch.save "
            f"writes ({type(e).__name__}: {e})"
        ) from None
    compressed = next((info.filename for info in entries if info.compress_type != zipfile.ZIP_STORED), None)
    if compressed is not None:
        raise CheckpointFileError(
            f"checkpoint {path} is not a popucom checkpoint: its entry {compressed!r:.80} is compressed, which "
            "torch.save never does (a compressed entry can unpack to far more than the file holds)"
        )
    declared = sum(info.file_size for info in entries)
    if declared > len(raw):
        raise CheckpointFileError(
            f"checkpoint {path} is corrupt: its archive declares {declared} bytes of entries in a file of {len(raw)}"
        )


def upgrade_trusted_checkpoint(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Rewrites a version-1 checkpoint in the safe format. This UNPICKLES `src` with
    weights_only=False, which runs any code in it: use it only on files you made yourself."""
    state = torch.load(Path(src), map_location="cpu", weights_only=False)
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT or state.get("version") != 1:
        raise CheckpointFileError(f"{src} is not a version-1 popucom checkpoint")
    state = {k: v for k, v in state.items() if k not in ("format", "version")}
    return write_checkpoint(dst, state)
