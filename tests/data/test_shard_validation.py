"""Shards written by anyone: crafted headers and impossible targets are refused with a
ShardError naming the file and the field, plus a seeded fuzzer."""

import json
import random

import numpy as np
import pytest

from popucom.data import ShardError, read_shard, shards, write_shard
from popucom.data.shards import FIELDS, MAGIC, sealed_header


@pytest.fixture(scope="module")
def good(bot_shards):
    return sorted(bot_shards.glob("*.pcs"))[0]


def rewrite_header(good, tmp_path, edit) -> object:
    """The shard with its header edited; its header checksum is made to fit the edit unless the
    edit changed the checksum itself (a forger can always compute one: the header is checked for
    what it says, not only for damage)."""
    raw = good.read_bytes()
    length = int.from_bytes(raw[8:12], "little")
    header = json.loads(raw[12 : 12 + length])
    body_start = min(spec["offset"] for spec in header["arrays"].values())
    sealed = header["header_crc32"]
    new = edit(header)
    if isinstance(new, dict) and new.get("header_crc32") == sealed:
        data = sealed_header(new)
    else:
        data = json.dumps(new).encode()
    assert 12 + len(data) <= body_start
    path = tmp_path / "crafted.pcs"
    path.write_bytes(
        MAGIC + len(data).to_bytes(4, "little") + data + b" " * (body_start - 12 - len(data)) + raw[body_start:]
    )
    return path


def set_in(header: dict, keys: list, value) -> dict:
    node = header
    for key in keys[:-1]:
        node = node[key]
    if value is KeyError:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return header


@pytest.mark.parametrize(
    "keys, value, message",
    [
        ([], [], "a JSON list, not an object"),
        (["arrays"], KeyError, "'arrays' is missing"),
        (["arrays"], [1], "'arrays' is missing or not an object"),
        (["arrays", "policy"], "f2", "array 'policy': its header entry is not an object"),
        (["arrays", "policy", "dtype"], "<x9", "array 'policy' has unknown dtype '<x9'"),
        (["arrays", "score", "dtype"], None, "array 'score' has dtype None"),
        (["arrays", "policy", "dtype"], "<f4", "array 'policy' has dtype '<f4'"),
        (["arrays", "outcome", "offset"], KeyError, "array 'outcome' has offset None"),
        (["arrays", "outcome", "offset"], -64, "array 'outcome' has offset -64"),
        (["arrays", "outcome", "offset"], 1.5, "array 'outcome' has offset 1.5"),
        (["arrays", "outcome", "offset"], 2**70, "array 'outcome' has offset"),
        (["arrays", "state", "shape"], "x", "array 'state' has dtype"),
        (["num_samples"], "12", "'num_samples' is '12', not a count"),
        (["num_samples"], -1, "'num_samples' is -1"),
        (["num_samples"], 10**30, "'num_samples' is"),
        (["meta"], [], "'meta' is not an object"),
        (["format_version"], KeyError, "shard format version None"),
    ],
)
def test_crafted_headers_are_refused(good, tmp_path, keys, value, message) -> None:
    path = rewrite_header(good, tmp_path, lambda h: value if not keys else set_in(h, keys, value))
    with pytest.raises(ShardError, match=message) as info:
        read_shard(path)
    assert str(path) in str(info.value)


def arrays_of(good) -> dict:
    shard = read_shard(good)
    return {name: np.array(shard.arrays[name]) for name in FIELDS}


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("policy", np.nan, "array 'policy' has 1 bad rows \\(NaN, inf or negative"),
        ("policy", np.inf, "array 'policy'"),
        ("policy", -0.5, "array 'policy'.*first row 3"),
        ("score", np.inf, "array 'score' has 1 bad rows \\(NaN or inf\\)"),
        ("score", np.nan, "array 'score'"),
        ("outcome", 7, "array 'outcome' has 1 bad rows \\(not -1, 0 or 1\\), first row 3"),
        ("ownership", -2, "array 'ownership'"),
        ("short_term_value", 1.5, "array 'short_term_value' has 1 bad rows \\(NaN, inf or outside"),
        ("short_term_value", np.nan, "array 'short_term_value'"),
    ],
)
def test_impossible_targets_are_refused(good, tmp_path, field, value, message) -> None:
    arrays = arrays_of(good)
    if arrays[field].ndim == 2:
        arrays[field][3, 5] = value
    else:
        arrays[field][3] = value
    path = write_shard(tmp_path / "bad.pcs", arrays)
    with pytest.raises(ShardError, match=message) as info:
        read_shard(path)
    assert str(path) in str(info.value)


LEAVES = [None, -1, 0, 1, 2**70, -(2**70), 1.5, "x", "<f4", "|b1", [], {}, [1, 2], True, float("nan")]


def fuzz_shards(good, tmp_path, cases: int, seed: int) -> None:
    """Random header edits and body byte flips: read_shard raises ShardError or returns a shard
    whose targets are all possible; nothing else, ever."""
    rng = random.Random(seed)
    raw = good.read_bytes()
    length = int.from_bytes(raw[8:12], "little")
    ranges = list(array_ranges(good).values())
    arrays_end = max(b for _, b in ranges)
    refused = 0
    for case in range(cases):
        path = tmp_path / f"fuzz{case % 4}.pcs"
        if rng.random() < 0.6:

            def edit(h: dict) -> object:
                for _ in range(rng.randint(1, 3)):
                    node, keys = h, []
                    while isinstance(node, dict) and node and rng.random() < 0.7:
                        key = rng.choice(sorted(node))
                        keys.append(key)
                        node = node[key]
                    if not keys:
                        return rng.choice(LEAVES)
                    set_in(h, keys, rng.choice(LEAVES))
                return h

            path = rewrite_header(good, tmp_path, edit)
            damaged_arrays = False
        else:
            data, flipped = bytearray(raw), set()
            for _ in range(rng.randint(1, 8)):
                pos = rng.randrange(12 + length if rng.random() < 0.3 else 0, len(data))
                data[pos] = rng.randrange(256)
                flipped.add(pos)
            kept = rng.choice([len(data), rng.randrange(len(data))])
            path.write_bytes(bytes(data[:kept]))
            # The checksums must see every changed byte of an array, and a cut into the arrays.
            changed = [pos for pos in flipped if pos < kept and data[pos] != raw[pos]]
            damaged_arrays = kept < arrays_end or any(a <= pos < b for pos in changed for a, b in ranges)
        try:
            shard = read_shard(path)
        except ShardError:
            refused += 1
            continue
        assert not damaged_arrays, f"case {case}: damaged arrays were read"
        policy = np.asarray(shard.arrays["policy"], np.float32)
        assert np.isfinite(policy).all() and (policy >= 0).all()
        assert set(np.unique(np.asarray(shard.arrays["outcome"]))) <= {-1, 0, 1}
    assert refused > cases // 2


def test_shard_fuzz(good, tmp_path) -> None:
    fuzz_shards(good, tmp_path, cases=300, seed=3)


@pytest.mark.slow
def test_shard_fuzz_long(good, tmp_path) -> None:
    fuzz_shards(good, tmp_path, cases=5000, seed=4)


@pytest.mark.parametrize("version", [0, 2, "1"])
def test_other_feature_version_is_read_and_encoded_now(good, tmp_path, caplog, version) -> None:
    """Shards hold packed positions, never feature planes, so a shard from another feature
    version is read with a warning and its positions are encoded by this build's encoder."""
    import logging

    import popucom
    from popucom.train.window import ReplayWindow

    path = rewrite_header(good, tmp_path, lambda h: set_in(h, ["feature_version"], version))
    with caplog.at_level(logging.WARNING, logger="popucom.data.shards"):
        shard = read_shard(path)
    assert any("feature version" in r.getMessage() and str(path) in r.getMessage() for r in caplog.records)
    original = read_shard(good)
    for name in FIELDS:
        np.testing.assert_array_equal(np.asarray(shard.arrays[name]), np.asarray(original.arrays[name]))
    states = np.ascontiguousarray(shard.arrays["state"][:8])
    features = np.empty((len(states), popucom.NUM_FEATURE_PLANES, 9, 9), np.float32)
    popucom.encode_batch(states, features)
    for row, packed in zip(features, states):
        np.testing.assert_array_equal(row, popucom.encode_position(popucom.Position.unpack(packed)))
    window = ReplayWindow(tmp_path, window_samples=len(shard), val_fraction=0.0)
    batch = window.sample(np.random.default_rng(0), 4, augment=False)
    assert batch.features.shape == (4, popucom.NUM_FEATURE_PLANES, 9, 9)


# --- checksums -----------------------------------------------------------------------------------


def array_ranges(path) -> dict[str, tuple[int, int]]:
    """Byte range of each array in a shard file."""
    raw = path.read_bytes()
    length = int.from_bytes(raw[8:12], "little")
    header = json.loads(raw[12 : 12 + length])
    ranges = {}
    for name, spec in header["arrays"].items():
        dtype, shape = np.dtype(spec["dtype"]), spec["shape"]
        ranges[name] = (spec["offset"], spec["offset"] + dtype.itemsize * int(np.prod(shape)))
    return ranges


def test_a_zeroed_tail_is_refused(good, tmp_path) -> None:
    """Zeros read as plausible targets (policy 0, outcome 0, ownership 0): only a checksum sees them."""
    data = bytearray(good.read_bytes())
    end = max(stop for _, stop in array_ranges(good).values())
    data[end - 4096 : end] = bytes(4096)
    path = tmp_path / "zeroed.pcs"
    path.write_bytes(bytes(data))
    with pytest.raises(ShardError, match=r"checksum") as info:
        read_shard(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_a_flipped_byte_in_any_array_is_refused_naming_it(good, tmp_path, field) -> None:
    start, stop = array_ranges(good)[field]
    data = bytearray(good.read_bytes())
    for pos in (start, (start + stop) // 2, stop - 1):
        flipped = bytearray(data)
        flipped[pos] ^= 0x04  # a value every field accepts: only the checksum tells
        path = tmp_path / f"flipped-{field}.pcs"
        path.write_bytes(bytes(flipped))
        with pytest.raises(ShardError, match=rf"array '{field}'.*checksum"):
            read_shard(path)


def test_a_shard_of_format_version_1_still_reads(good, tmp_path, caplog, monkeypatch) -> None:
    """Shards written before the checksums (format version 1) are read as they are, with one
    warning that their damage cannot be seen: a run in progress goes on."""
    import logging

    raw = good.read_bytes()
    length = int.from_bytes(raw[8:12], "little")
    header = json.loads(raw[12 : 12 + length])
    body_start = min(spec["offset"] for spec in header["arrays"].values())
    header = {key: value for key, value in header.items() if key not in ("checksums", "header_crc32")}
    header["format_version"] = 1
    data = json.dumps(header).encode()
    path = tmp_path / "old.pcs"
    path.write_bytes(
        MAGIC + len(data).to_bytes(4, "little") + data + b" " * (body_start - 12 - len(data)) + raw[body_start:]
    )
    monkeypatch.setattr(shards, "_warned_unchecked", [])
    with caplog.at_level(logging.WARNING, logger="popucom.data.shards"):
        shard = read_shard(path)
        read_shard(path)
    np.testing.assert_array_equal(np.asarray(shard.arrays["policy"]), np.asarray(read_shard(good).arrays["policy"]))
    assert shard.header["format_version"] == 1
    from popucom.data.shards import FORMAT_VERSION

    assert FORMAT_VERSION == 3
    assert read_shard(good).header["format_version"] == 3
    assert len([r for r in caplog.records if "no checksums" in r.getMessage()]) == 1


@pytest.mark.parametrize("version", [1, 2])
def test_a_shard_from_before_the_short_term_value_reads_it_as_the_outcome(good, tmp_path, version) -> None:
    """Version-1 and -2 shards have no short-term value: theirs is the final outcome (the value
    target they had), and every other array reads as stored."""

    def older(header: dict) -> dict:
        del header["arrays"]["short_term_value"]
        header["format_version"] = version
        if version == 1:
            del header["checksums"], header["header_crc32"]
        else:
            del header["checksums"]["short_term_value"]
        return header

    shard = read_shard(rewrite_header(good, tmp_path, older))
    outcome = np.asarray(read_shard(good).arrays["outcome"])
    np.testing.assert_array_equal(shard.arrays["short_term_value"], outcome.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(shard.arrays["outcome"]), outcome)


def test_a_corrupt_packed_position_names_the_shard_and_row(good, tmp_path) -> None:
    from popucom.train.window import ReplayWindow

    arrays = arrays_of(good)
    arrays["state"][:] = np.uint64(2**64 - 1)
    path = write_shard(tmp_path / "iter0000-00000.pcs", arrays)
    window = ReplayWindow(tmp_path, window_samples=10**6, val_fraction=0.0)
    with pytest.raises(ShardError, match=rf"{path}: row \d+: packed position is corrupt"):
        window.sample(np.random.default_rng(0), 8)
