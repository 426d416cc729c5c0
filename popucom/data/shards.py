"""Shard files: the compact, versioned training-data format.

Layout of a `.pcs` file:

    8 bytes   magic b"PCSHARD1"
    4 bytes   little-endian header length H
    H bytes   JSON header: format_version, feature_version, num_samples,
              num_games, meta (free-form, e.g. the producing model), and
              for each array its dtype, shape and byte offset
    ...       the raw arrays, C order, each 64-byte aligned

Positions are stored packed (`Position.pack()`, 9 x uint64 = 72 bytes), not as
float planes; a sample is ~330 bytes. Arrays are memory-mapped on read, so a
trainer samples rows from a window of many shards without loading them.
Shards are written atomically (temp file + rename).

The feature planes are never stored: the trainer encodes them from the packed
positions when it samples a batch (`encode_batch`), always with this build's
encoder. `feature_version` in the header only records the encoder of the build
that wrote the shard, so a shard from another feature version is read (with a
warning) and its positions are encoded as this build's version; the targets
(policy, outcome, score, ownership) do not depend on the features.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _core
from ..fileio import write_atomic

log = logging.getLogger(__name__)

MAGIC = b"PCSHARD1"
FORMAT_VERSION = 1
ALIGN = 64

# name -> (dtype, per-sample shape, meaning)
FIELDS: dict[str, tuple[np.dtype, tuple[int, ...], str]] = {
    "state": (np.dtype(np.uint64), (_core.PACKED_WORDS,), "packed position (Position.pack)"),
    "policy": (np.dtype(np.float16), (_core.NUM_SQUARES,), "search policy target (sums to 1)"),
    "outcome": (np.dtype(np.int8), (), "final result for the side to move: 1 win, 0 draw, -1 loss"),
    "score": (np.dtype(np.float32), (), "final floor margin incl. komi for the side to move"),
    "ownership": (np.dtype(np.int8), (_core.NUM_SQUARES,), "final floors: 1 own, -1 opponent, 0 unpainted"),
    "full_search": (np.dtype(np.bool_), (), "the policy target comes from a full search"),
    "game_id": (np.dtype(np.uint64), (), "random 64-bit id of the game (validation split)"),
}


class ShardError(ValueError):
    """A shard file is missing, truncated, corrupt or of another version."""


@dataclass
class Shard:
    path: Path
    header: dict
    arrays: dict[str, np.ndarray]  # memory-mapped, read-only

    def __len__(self) -> int:
        return int(self.header["num_samples"])


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def write_shard(path: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict | None = None) -> Path:
    """Writes one shard atomically; `arrays` must hold every field of FIELDS with matching lengths."""
    missing = set(FIELDS) - set(arrays)
    if missing:
        raise ValueError(f"shard arrays missing: {sorted(missing)}")
    n = len(arrays["state"])
    prepared = {}
    for name, (dtype, shape, _) in FIELDS.items():
        a = np.ascontiguousarray(arrays[name], dtype=dtype)
        if a.shape != (n, *shape):
            raise ValueError(f"shard array {name} has shape {a.shape}, expected {(n, *shape)}")
        prepared[name] = a
    header = {
        "format_version": FORMAT_VERSION,
        "feature_version": _core.FEATURE_VERSION,
        "num_samples": n,
        "num_games": int(len(np.unique(prepared["game_id"]))),
        "meta": meta or {},
        "arrays": {},
    }
    # Offsets depend on the header length, which depends on the offsets: lay out
    # the data after a header padded to a fixed, generous size.
    body_start = _aligned(12 + 4096 + 64 * len(FIELDS) + len(json.dumps(header["meta"])))
    offset = body_start
    for name, a in prepared.items():
        header["arrays"][name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": offset}
        offset = _aligned(offset + a.nbytes)
    header_bytes = json.dumps(header).encode()
    if 12 + len(header_bytes) > body_start:
        raise ValueError("shard header too large")

    def write(f) -> None:
        f.write(MAGIC)
        f.write(len(header_bytes).to_bytes(4, "little"))
        f.write(header_bytes)
        for name, a in prepared.items():
            f.seek(header["arrays"][name]["offset"])
            f.write(a.tobytes())
        f.truncate(offset)

    return write_atomic(path, write)


def read_shard(path: str | os.PathLike) -> Shard:
    """Opens a shard with memory-mapped arrays; raises ShardError naming the file and the field
    that is wrong. Everything in the header is checked before it is used (the header may have
    been written by anyone), and the targets are checked for values no game can produce:
    NaN/inf or negative policy, NaN/inf score, an outcome or ownership outside -1..1."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            magic = f.read(8)
            if magic != MAGIC:
                raise ShardError(f"{path}: not a popucom shard (bad magic {magic!r})")
            length = int.from_bytes(f.read(4), "little")
            if 12 + length > size:
                raise ShardError(f"{path}: truncated shard header ({length} bytes announced, file has {size})")
            raw = f.read(length)
    except OSError as e:
        raise ShardError(f"{path}: cannot read shard: {e}") from e
    if len(raw) != length:
        raise ShardError(f"{path}: truncated shard header")
    try:
        header = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise ShardError(f"{path}: corrupt shard header: {e}") from e
    if not isinstance(header, dict):
        raise ShardError(f"{path}: corrupt shard header: a JSON {type(header).__name__}, not an object")
    if header.get("format_version") != FORMAT_VERSION:
        raise ShardError(
            f"{path}: shard format version {header.get('format_version')!r:.40}, "
            f"this build reads version {FORMAT_VERSION}"
        )
    if header.get("feature_version") != _core.FEATURE_VERSION:
        # Nothing to convert: only packed positions are stored, and the trainer encodes them
        # with this build's encoder when it samples them.
        log.warning(
            "%s: shard written by a build with feature version %.40r; its packed positions will be "
            "encoded as this build's version %d",
            path,
            header.get("feature_version"),
            _core.FEATURE_VERSION,
        )
    n = header.get("num_samples")
    if not _is_count(n):
        raise ShardError(f"{path}: header field 'num_samples' is {n!r:.40}, not a count")
    if not isinstance(header.get("meta", {}), dict):
        raise ShardError(f"{path}: header field 'meta' is not an object")
    specs = header.get("arrays")
    if not isinstance(specs, dict):
        raise ShardError(f"{path}: header field 'arrays' is missing or not an object")
    arrays = {}
    for name, (dtype, shape, _) in FIELDS.items():
        spec = specs.get(name)
        if spec is None:
            raise ShardError(f"{path}: shard has no array '{name}'")
        if not isinstance(spec, dict):
            raise ShardError(f"{path}: array '{name}': its header entry is not an object")
        try:
            found = np.dtype(spec.get("dtype"))
        except (TypeError, ValueError):
            raise ShardError(
                f"{path}: array '{name}' has unknown dtype {spec.get('dtype')!r:.40}, expected {dtype.str}"
            ) from None
        if found != dtype or spec.get("shape") != [n, *shape]:
            raise ShardError(
                f"{path}: array '{name}' has dtype {spec.get('dtype')!r:.40} shape "
                f"{spec.get('shape')!r:.80}, expected {dtype.str} {[n, *shape]}"
            )
        offset = spec.get("offset")
        if not _is_count(offset) or offset < 12 + length:
            raise ShardError(
                f"{path}: array '{name}' has offset {offset!r:.40}; it must be a whole number of "
                f"bytes past the header (>= {12 + length})"
            )
        end = offset + dtype.itemsize * int(np.prod((n, *shape)))
        if end > size:
            raise ShardError(f"{path}: truncated shard (array '{name}' ends at byte {end}, file has {size})")
        arrays[name] = (
            np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=(n, *shape))
            if n
            else np.zeros((0, *shape), dtype=dtype)
        )
    _check_targets(path, arrays)
    return Shard(path, header, arrays)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 48


def _check_targets(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Refuses values that no game produces, which would train silently into nonsense
    (a negative policy drove the loss to -125,762)."""

    def bad_rows(name: str, ok: np.ndarray) -> None:
        if not ok.all():
            rows = np.flatnonzero(~ok.reshape(len(ok), -1).all(axis=1) if ok.ndim > 1 else ~ok)
            raise ShardError(
                f"{path}: array '{name}' has {len(rows)} bad rows ({_MEANING[name]}), first row {int(rows[0])}"
            )

    policy = np.asarray(arrays["policy"], dtype=np.float32)
    bad_rows("policy", np.isfinite(policy) & (policy >= 0))
    bad_rows("score", np.isfinite(np.asarray(arrays["score"])))
    bad_rows("outcome", np.abs(np.asarray(arrays["outcome"], dtype=np.int16)) <= 1)
    bad_rows("ownership", np.abs(np.asarray(arrays["ownership"], dtype=np.int16)) <= 1)


_MEANING = {
    "policy": "NaN, inf or negative probabilities",
    "score": "NaN or inf",
    "outcome": "not -1, 0 or 1",
    "ownership": "not -1, 0 or 1",
}


def samples_from_game(
    positions: list[_core.Position],
    policies: np.ndarray,
    full_search: np.ndarray,
    final: _core.Position,
    game_id: int,
) -> dict[str, np.ndarray]:
    """Training rows for every position of one finished game (targets from each mover's side)."""
    if not final.is_over:
        raise ValueError("samples_from_game needs the final (finished) position")
    n = len(positions)
    result = final.result
    black_outcome = {_core.Result.BLACK_WIN: 1, _core.Result.WHITE_WIN: -1, _core.Result.DRAW: 0}[result]
    margin = final.final_margin  # the rule lives in C++ (Position::final_margin), shared with the search
    squares = range(_core.NUM_SQUARES)
    black_floors = np.array([(final.floors(_core.Color.BLACK) >> sq) & 1 for sq in squares], dtype=np.int8)
    white_floors = np.array([(final.floors(_core.Color.WHITE) >> sq) & 1 for sq in squares], dtype=np.int8)
    black_ownership = black_floors - white_floors
    signs = np.array([1 if p.to_move == _core.Color.BLACK else -1 for p in positions], dtype=np.int8)
    return {
        "state": np.stack([p.pack() for p in positions]) if n else np.zeros((0, _core.PACKED_WORDS), np.uint64),
        "policy": np.asarray(policies, dtype=np.float16).reshape(n, _core.NUM_SQUARES),
        "outcome": (signs * black_outcome).astype(np.int8),
        "score": (signs * margin).astype(np.float32),
        "ownership": (signs[:, None] * black_ownership[None, :]).astype(np.int8),
        "full_search": np.asarray(full_search, dtype=np.bool_).reshape(n),
        "game_id": np.full(n, game_id, dtype=np.uint64),
    }


def concat_samples(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}
