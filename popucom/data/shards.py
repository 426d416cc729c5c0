"""Shard files: the compact, versioned training-data format.

Layout of a `.pcs` file:

    8 bytes   magic b"PCSHARD1"
    4 bytes   little-endian header length H
    H bytes   JSON header: format_version, feature_version, num_samples,
              num_games, meta (free-form, e.g. the producing model),
              for each array its dtype, shape and byte offset, the CRC-32
              of each array's bytes (checksums) and of the header itself
              (header_crc32)
    ...       the raw arrays, C order, each 64-byte aligned

Positions are stored packed (`Position.pack()`, 9 x uint64 = 72 bytes), not as
float planes; a sample is ~330 bytes. Arrays are memory-mapped on read, so a
trainer samples rows from a window of many shards without loading them.
Shards are written atomically (temp file + rename). The checksums catch what no value check
can: a zeroed tail or a flipped bit reads as plausible targets. Version-1 shards (before the
checksums) are still read, with one warning that their damage cannot be seen. Version-1 and
version-2 shards have no short-term value (data/short_term.py): theirs reads as the final
outcome, the only value target they had.

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
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _core
from ..fileio import write_atomic

log = logging.getLogger(__name__)

MAGIC = b"PCSHARD1"
FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)  # 1: no checksums; 1 and 2: no short-term value
ALIGN = 64

# name -> (dtype, per-sample shape, meaning)
FIELDS: dict[str, tuple[np.dtype, tuple[int, ...], str]] = {
    "state": (np.dtype(np.uint64), (_core.PACKED_WORDS,), "packed position (Position.pack)"),
    "policy": (np.dtype(np.float16), (_core.NUM_SQUARES,), "search policy target (sums to 1)"),
    "outcome": (np.dtype(np.int8), (), "final result for the side to move: 1 win, 0 draw, -1 loss"),
    "short_term_value": (
        np.dtype(np.float32),
        (),
        "the next plies' search values and the result, averaged (data/short_term.py), in [-1, 1]",
    ),
    "score": (np.dtype(np.float32), (), "final floor margin incl. komi for the side to move"),
    "ownership": (np.dtype(np.int8), (_core.NUM_SQUARES,), "final floors: 1 own, -1 opponent, 0 unpainted"),
    "full_search": (np.dtype(np.bool_), (), "the policy target comes from a full search"),
    "game_id": (np.dtype(np.uint64), (), "random 64-bit id of the game (validation split)"),
}


# Fields a shard of an older version lacks, each with how it reads from the fields it has.
ADDED_IN_VERSION_3 = {"short_term_value": lambda arrays: np.asarray(arrays["outcome"], dtype=np.float32)}


def stored_fields(version: int) -> list[str]:
    """The FIELDS a shard of that format version holds."""
    return [name for name in FIELDS if version >= 3 or name not in ADDED_IN_VERSION_3]


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
        "checksums": {name: _crc32(a) for name, a in prepared.items()},
    }
    # Offsets depend on the header length, which depends on the offsets: lay out
    # the data after a header padded to a fixed, generous size.
    body_start = _aligned(12 + 4096 + 64 * len(FIELDS) + len(json.dumps(header["meta"])))
    offset = body_start
    for name, a in prepared.items():
        header["arrays"][name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": offset}
        offset = _aligned(offset + a.nbytes)
    header_bytes = sealed_header(header)
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
    header, header_end, size = _read_header(path)
    version = _checked_version(path, header)
    checksums = _checked_checksums(path, header, stored_fields(version)) if version >= 2 else None
    if checksums is None:
        _warn_unchecked(path)
    _warn_other_features(path, header)
    n, specs = _checked_layout(path, header)
    arrays = {}
    for name in stored_fields(version):
        arrays[name] = _mapped_array(path, name, specs.get(name), n, header_end, size)
        if checksums is not None and _crc32(arrays[name]) != checksums[name]:
            raise ShardError(
                f"{path}: array '{name}' fails its checksum (crc32 {_crc32(arrays[name]):08x}, header has "
                f"{checksums[name]:08x}): the file is damaged"
            )
    for name, derive in ADDED_IN_VERSION_3.items():
        if name not in arrays:
            arrays[name] = derive(arrays)
    _check_targets(path, arrays)
    return Shard(path, header, arrays)


def _read_header(path: Path) -> tuple[dict, int, int]:
    """The shard's parsed header (a JSON object), the byte where it ends and the file's size."""
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
    return header, 12 + length, size


def _checked_version(path: Path, header: dict) -> int:
    version = header.get("format_version")
    if not (isinstance(version, int) and not isinstance(version, bool) and version in READABLE_VERSIONS):
        raise ShardError(
            f"{path}: shard format version {version!r:.40}, this build reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))}"
        )
    if version == 1 and ("checksums" in header or "header_crc32" in header):
        # Version 1 never had them: a flipped bit turned a 2 into a 1.
        raise ShardError(f"{path}: a version-1 header with checksums: the file is damaged")
    return version


def _warn_other_features(path: Path, header: dict) -> None:
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


def _checked_layout(path: Path, header: dict) -> tuple[int, dict]:
    """The header's sample count and its table of arrays, checked to be what they claim."""
    n = header.get("num_samples")
    if not _is_count(n):
        raise ShardError(f"{path}: header field 'num_samples' is {n!r:.40}, not a count")
    if not isinstance(header.get("meta", {}), dict):
        raise ShardError(f"{path}: header field 'meta' is not an object")
    specs = header.get("arrays")
    if not isinstance(specs, dict):
        raise ShardError(f"{path}: header field 'arrays' is missing or not an object")
    return n, specs


def _mapped_array(path: Path, name: str, spec: object, n: int, header_end: int, size: int) -> np.ndarray:
    """Array `name` of `n` samples, memory-mapped from where its header entry `spec` says, once
    its dtype, shape and bytes are checked to fit the field and the file."""
    dtype, shape, _ = FIELDS[name]
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
    if not _is_count(offset) or offset < header_end:
        raise ShardError(
            f"{path}: array '{name}' has offset {offset!r:.40}; it must be a whole number of "
            f"bytes past the header (>= {header_end})"
        )
    end = offset + dtype.itemsize * int(np.prod((n, *shape)))
    if end > size:
        raise ShardError(f"{path}: truncated shard (array '{name}' ends at byte {end}, file has {size})")
    if not n:
        return np.zeros((0, *shape), dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=(n, *shape))


def _crc32(array: np.ndarray) -> int:
    return zlib.crc32(np.ascontiguousarray(array).data) & 0xFFFFFFFF


def _header_crc32(header: dict) -> int:
    """CRC-32 of the header less its own checksum, serialized canonically (sorted keys), so a
    reader recomputes it from the parsed header whatever the writer's spacing."""
    rest = {key: value for key, value in header.items() if key != "header_crc32"}
    return zlib.crc32(json.dumps(rest, sort_keys=True).encode()) & 0xFFFFFFFF


def sealed_header(header: dict) -> bytes:
    """The header's bytes with its own checksum added (`header_crc32`)."""
    return json.dumps({**header, "header_crc32": _header_crc32(header)}).encode()


def _checked_checksums(path: Path, header: dict, fields: list[str]) -> dict[str, int]:
    """The checksums of `fields` in a version-2 (or later) header, once the header's own checksum holds."""
    stored = header.get("header_crc32")
    if not _is_crc(stored):
        raise ShardError(f"{path}: header field 'header_crc32' is {stored!r:.40}, not a CRC-32")
    if _header_crc32(header) != stored:
        raise ShardError(f"{path}: the header fails its checksum (header_crc32): the file is damaged")
    checksums = header.get("checksums")
    if not isinstance(checksums, dict) or not all(_is_crc(checksums.get(name)) for name in fields):
        raise ShardError(f"{path}: header field 'checksums' is missing or lacks a CRC-32 for an array")
    return checksums


def _is_crc(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 32


_warned_unchecked: list[Path] = []


def _warn_unchecked(path: Path) -> None:
    """Once per process: many version-1 shards in a window would repeat it for each."""
    if not _warned_unchecked:
        _warned_unchecked.append(path)
        log.warning(
            "%s: a format-version-1 shard has no checksums, so damage to its arrays cannot be seen "
            "(self-play writes version %d; further version-1 shards are read without this warning)",
            path,
            FORMAT_VERSION,
        )


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
    short_term = np.asarray(arrays["short_term_value"])
    bad_rows("short_term_value", np.isfinite(short_term) & (np.abs(short_term) <= 1))
    bad_rows("ownership", np.abs(np.asarray(arrays["ownership"], dtype=np.int16)) <= 1)


_MEANING = {
    "policy": "NaN, inf or negative probabilities",
    "score": "NaN or inf",
    "outcome": "not -1, 0 or 1",
    "short_term_value": "NaN, inf or outside [-1, 1]",
    "ownership": "not -1, 0 or 1",
}


def black_outcome(result: _core.Result) -> int:
    """A finished game's result for Black: 1 win, 0 draw, -1 loss."""
    return {_core.Result.BLACK_WIN: 1, _core.Result.WHITE_WIN: -1, _core.Result.DRAW: 0}[result]


def samples_from_game(
    positions: list[_core.Position],
    policies: np.ndarray,
    full_search: np.ndarray,
    final: _core.Position,
    game_id: int,
    short_term_value: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Training rows for every position of one finished game (targets from each mover's side).
    short_term_value (n,) comes from the searches (data/short_term.py); games without searches
    (the bots') take the final outcome."""
    if not final.is_over:
        raise ValueError("samples_from_game needs the final (finished) position")
    n = len(positions)
    result = final.result
    black_result = black_outcome(result)
    margin = final.final_margin  # the rule lives in C++ (Position::final_margin), shared with the search
    squares = range(_core.NUM_SQUARES)
    black_floors = np.array([(final.floors(_core.Color.BLACK) >> sq) & 1 for sq in squares], dtype=np.int8)
    white_floors = np.array([(final.floors(_core.Color.WHITE) >> sq) & 1 for sq in squares], dtype=np.int8)
    black_ownership = black_floors - white_floors
    signs = np.array([1 if p.to_move == _core.Color.BLACK else -1 for p in positions], dtype=np.int8)
    outcome = (signs * black_result).astype(np.int8)
    if short_term_value is None:
        short_term_value = outcome
    return {
        "state": np.stack([p.pack() for p in positions]) if n else np.zeros((0, _core.PACKED_WORDS), np.uint64),
        "policy": np.asarray(policies, dtype=np.float16).reshape(n, _core.NUM_SQUARES),
        "outcome": outcome,
        "short_term_value": np.asarray(short_term_value, dtype=np.float32).reshape(n),
        "score": (signs * margin).astype(np.float32),
        "ownership": (signs[:, None] * black_ownership[None, :]).astype(np.int8),
        "full_search": np.asarray(full_search, dtype=np.bool_).reshape(n),
        "game_id": np.full(n, game_id, dtype=np.uint64),
    }


def concat_samples(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}
