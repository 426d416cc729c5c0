"""Checkpoint files: loading never runs code from the file, and damage is detected."""

import io
import os
import pickle
import random
import zipfile

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from popucom.nn import preset
from popucom.nn.checkpoint_file import CHECKPOINT_VERSION, read_checkpoint, write_checkpoint
from popucom.train import TrainConfig, Trainer, load_checkpoint, load_network_with_checkpoint


class RunsCode:
    """Unpickling this calls os.system: what a hostile checkpoint would do."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple:
    path = tmp_path_factory.mktemp("ckpt") / "tiny.pt"
    trainer = Trainer(preset("tiny"), TrainConfig(seed=7))
    trainer.save(path)
    return path, trainer


def test_checkpoint_loads_with_weights_only(saved) -> None:
    path, trainer = saved
    assert CHECKPOINT_VERSION == 2
    stored = torch.load(path, weights_only=True)  # would raise for any pickled object but plain data
    assert set(stored) == {"meta", "sha256", "tensors"} and isinstance(stored["meta"], str)
    ckpt = load_checkpoint(path, expect=preset("tiny"))
    assert ckpt.step == 0 and ckpt.train_config == TrainConfig(seed=7)
    for name, tensor in trainer.model.state_dict().items():
        assert torch.equal(ckpt.state["model"][name], tensor)


def test_rng_states_round_trip_exactly(tmp_path) -> None:
    """Tuples, numpy arrays and big ints come back with their types, so resume is exact."""
    trainer = Trainer(preset("tiny"), TrainConfig())
    random.seed(3)
    np.random.seed(4)
    python_state, numpy_state = random.getstate(), np.random.get_state(legacy=False)
    rng = load_checkpoint(trainer.save(tmp_path / "t.pt")).state["rng"]
    assert rng["python"] == python_state and isinstance(rng["python"], tuple)
    np.testing.assert_array_equal(rng["numpy"]["state"]["key"], numpy_state["state"]["key"])
    assert rng["numpy"]["state"]["key"].dtype == np.uint32
    assert rng["sampler"] == trainer.rng.bit_generator.state


@pytest.mark.parametrize("container", ["torch_zip", "plain_pickle", "inside_our_layout"])
def test_malicious_pickle_is_refused_without_running(tmp_path, container: str) -> None:
    marker = tmp_path / "pwned"
    evil = RunsCode(str(marker))
    path = tmp_path / "evil.pt"
    if container == "torch_zip":
        torch.save({"format": "popucom-checkpoint", "version": 2, "model": evil}, path)
    elif container == "plain_pickle":
        path.write_bytes(pickle.dumps({"format": "popucom-checkpoint", "x": evil}))
    else:
        torch.save({"meta": "{}", "sha256": "0", "tensors": {"w": evil}}, path)
    pickle.loads(pickle.dumps(RunsCode(str(tmp_path / "control"))))  # the payload does run when unpickled
    assert (tmp_path / "control").exists()
    with pytest.raises(ValueError, match="refused without loading it|corrupt"):
        load_checkpoint(path)
    with pytest.raises(ValueError):
        load_network_with_checkpoint(path)
    assert not marker.exists()


def test_version_1_checkpoint_gets_a_clear_error(tmp_path) -> None:
    old = tmp_path / "old.pt"
    torch.save({"format": "popucom-checkpoint", "version": 1, "rng": {"numpy": np.random.get_state()}}, old)
    with pytest.raises(ValueError, match="version-1 popucom checkpoint"):
        load_checkpoint(old)


def test_tampered_tensor_fails_the_checksum(saved, tmp_path) -> None:
    path, _ = saved
    stored = torch.load(path, weights_only=True)
    name = sorted(k for k in stored["tensors"] if k.startswith("/model/"))[0]
    stored["tensors"][name].view(-1)[0] += 1
    bad = tmp_path / "tampered.pt"
    torch.save(stored, bad)
    with pytest.raises(ValueError, match="do not match the stored sha256"):
        load_checkpoint(bad)


def test_missing_model_config_is_named(tmp_path) -> None:
    path = write_checkpoint(
        tmp_path / "no_config.pt", {"train_config": TrainConfig().to_dict(), "step": 0, "model": {}}
    )
    with pytest.raises(ValueError, match="'model_config' is missing"):
        load_checkpoint(path)
    assert read_checkpoint(path)["step"] == 0


def flip_fuzz(path, tmp_path, flips: int, seed: int) -> None:
    """Flips one random byte at a time: every variant is refused with a ValueError or loads
    to the very same state; never another exception, never silently changed values."""
    raw = path.read_bytes()
    reference = load_checkpoint(path).state
    # Bias half of the flips into the tensor data, where a flip used to load silently.
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        data = [
            (info.header_offset, info.header_offset + 30 + len(info.filename) + info.file_size)
            for info in z.infolist()
            if "/data/" in info.filename
        ]
    rng = random.Random(seed)
    refused = 0
    for i in range(flips):
        if i % 2 and data:
            lo, hi = rng.choice(data)
            pos = rng.randrange(lo, hi)
        else:
            pos = rng.randrange(len(raw))
        damaged = bytearray(raw)
        damaged[pos] ^= 1 << rng.randrange(8)
        target = tmp_path / "flipped.pt"
        target.write_bytes(bytes(damaged))
        try:
            state = load_checkpoint(target).state
        except ValueError:
            refused += 1
            continue
        for name, tensor in reference["model"].items():
            assert torch.equal(state["model"][name], tensor), f"flip at byte {pos} changed {name}"
    assert refused >= flips // 2  # every flip in the tensor data at least is caught


def test_flipped_bytes_are_detected(saved, tmp_path) -> None:
    flip_fuzz(saved[0], tmp_path, flips=60, seed=1)


@pytest.mark.slow
def test_flipped_bytes_are_detected_long(saved, tmp_path) -> None:
    flip_fuzz(saved[0], tmp_path, flips=3000, seed=2)


# Values a crafted model config might hold: each field's own kind at and past its bounds, other
# kinds, and numbers no network could be built from.
HOSTILE_VALUES = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, 2, 3, 63, 64, 65, 2047, 2048, 2049, 4096, 65536, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def config_fuzz(saved, data) -> None:
    """One crafted config (a few fields of the tiny network's changed, a valid sha256): loading
    refuses it with a ValueError within a second, or loads the network it describes."""
    import tempfile
    import time

    from popucom.nn.checkpoint import load_network
    from popucom.nn.config import ModelConfig

    path, _ = saved
    state = {k: v for k, v in read_checkpoint(path).items() if k not in ("format", "version")}
    config = dict(state["model_config"])
    fields = sorted(config) + ["loss_weights.policy", "loss_weights.score", "unknown"]
    for name in data.draw(st.lists(st.sampled_from(fields), min_size=1, max_size=3, unique=True)):
        value = data.draw(HOSTILE_VALUES)
        if name.startswith("loss_weights."):
            weights = config["loss_weights"] if isinstance(config["loss_weights"], dict) else {}
            config["loss_weights"] = {**weights, name.split(".", 1)[1]: value}
        else:
            config[name] = value
    with tempfile.TemporaryDirectory() as folder:
        crafted = write_checkpoint(f"{folder}/crafted.pt", {**state, "model_config": config})
        started = time.perf_counter()
        try:
            net = load_network(crafted)
        except ValueError as e:
            assert "crafted.pt" in str(e)
        else:
            assert net.config == ModelConfig.from_dict(config)  # what it loaded is what the file said
        assert time.perf_counter() - started < 2.0


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_crafted_model_configs_are_refused_or_exact(saved, data) -> None:
    config_fuzz(saved, data)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(data=st.data())
def test_crafted_model_configs_are_refused_or_exact_long(saved, data) -> None:
    config_fuzz(saved, data)
