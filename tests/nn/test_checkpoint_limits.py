"""A checkpoint's model config is a claim the file makes about itself: every field is bounded, and
the tensors it declares are compared with the stored ones before any network is built, so a small
crafted file (its sha256 recomputed, as anyone can) is refused at once instead of allocating
gigabytes."""

import json
import re
import subprocess
import sys
import textwrap
import time
import zipfile

import pytest
import torch

from popucom.nn import preset
from popucom.nn.checkpoint import load_network, read_model_state
from popucom.nn.checkpoint_file import payload_sha256, read_checkpoint, write_checkpoint
from popucom.nn.config import PRESETS, ModelConfig
from popucom.train import Trainer, load_checkpoint


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("limits") / "tiny.pt"
    return Trainer(preset("tiny")).save(path)


def crafted(source, target, **config_changes):
    """`source` with its model config changed and a valid sha256: what an attacker can write."""
    state = read_checkpoint(source)
    state = {k: v for k, v in state.items() if k not in ("format", "version")}
    state["model_config"] = {**state["model_config"], **config_changes}
    return write_checkpoint(target, state)


# Run in a child whose address space is capped at 1.5 GB above what it holds after importing
# torch: a loader that builds the network first dies of MemoryError there instead of taking the
# machine (a crafted d_model of 65536 asks for tens of GB).
CAPPED_LOAD = textwrap.dedent(
    r"""
    import json, re, resource, sys, time
    from popucom.nn.checkpoint import load_network

    size = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + 1_500_000_000, resource.RLIM_INFINITY))
    started = time.perf_counter()
    try:
        load_network(sys.argv[1])
        outcome = {"error": None}
    except BaseException as e:
        outcome = {"error": type(e).__name__, "message": str(e)}
    outcome["seconds"] = time.perf_counter() - started
    # VmHWM is this address space's own high-water mark; ru_maxrss would carry over the peak of
    # the forking pytest process through exec.
    status = open("/proc/self/status").read()
    outcome["peak_kb"] = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
    print(json.dumps(outcome))
    """
)


def load_capped(path) -> dict:
    run = subprocess.run([sys.executable, "-c", CAPPED_LOAD, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"d_model": 65536, "heads": 2}, "d_model"),  # out of bounds: named by the config check
        ({"layers": 100_000}, "layers"),
        ({"d_model": 2048, "layers": 48, "heads": 16, "mlp_ratio": 8}, "parameters|bytes"),  # within bounds, too big
        ({"d_model": 512, "heads": 8, "mlp_ratio": 4}, "d_model|shape"),  # allowed size, not these tensors
    ],
)
def test_crafted_config_is_refused_before_allocating(tiny_checkpoint, tmp_path, changes, message) -> None:
    path = crafted(tiny_checkpoint, tmp_path / "crafted.pt", **changes)
    assert path.stat().st_size < 1_000_000
    outcome = load_capped(path)
    assert outcome["error"] == "ValueError", outcome
    assert "crafted.pt" in outcome["message"]
    assert re.search(message, outcome["message"]), outcome["message"]
    assert outcome["seconds"] < 5.0 and outcome["peak_kb"] < 1_000_000, outcome


def test_every_loader_checks_the_tensors_before_building(tiny_checkpoint, tmp_path) -> None:
    path = crafted(tiny_checkpoint, tmp_path / "wide.pt", d_model=256, heads=4)
    for load in (load_network, load_checkpoint, read_model_state):
        with pytest.raises(ValueError, match="wide.pt.*model"):
            load(path)


def test_a_missing_or_extra_tensor_is_named(tiny_checkpoint, tmp_path) -> None:
    state = read_checkpoint(tiny_checkpoint)
    state = {k: v for k, v in state.items() if k not in ("format", "version")}
    name = sorted(state["model"])[0]
    state["model"]["intruder.weight"] = state["model"].pop(name)
    path = write_checkpoint(tmp_path / "renamed.pt", state)
    with pytest.raises(ValueError, match=f"lacks.*{name}|intruder"):
        load_network(path)


def test_the_presets_and_their_checkpoints_pass(tiny_checkpoint) -> None:
    from popucom.nn.checkpoint import MAX_MODEL_BYTES, declared_bytes, declared_tensors

    for config in PRESETS.values():
        assert declared_bytes(declared_tensors(config)) < MAX_MODEL_BYTES // 10
    started = time.perf_counter()
    load_network(tiny_checkpoint)
    assert time.perf_counter() - started < 5.0


def field_limits() -> dict:
    from popucom.nn.config import FIELD_LIMITS

    return FIELD_LIMITS


INT_FIELDS = ["d_model", "layers", "heads", "mlp_ratio", "mhc_streams", "sinkhorn_iters", "head_hidden", "input_planes"]


@pytest.mark.parametrize("name", INT_FIELDS)
def test_each_bounded_field_names_itself(name: str) -> None:
    low, high = field_limits()[name]
    base = PRESETS["small"].to_dict()
    for bad in (high * 2 + 1, low - 1 if low > 0 else -1, True, "3", float("nan")):
        with pytest.raises(ValueError, match=name):
            ModelConfig.from_dict({**base, name: bad})


def deflated_copy(source, target):
    """`source` re-zipped with every entry deflated: the same payload and sha256, a fraction of
    the size on disk, which torch's reader would inflate whatever it unpacks to."""
    with zipfile.ZipFile(source) as inner, zipfile.ZipFile(target, "w") as outer:
        for info in inner.infolist():
            outer.writestr(info.filename, inner.read(info.filename), compress_type=zipfile.ZIP_DEFLATED)
    return target


def test_a_compressed_archive_is_refused_before_it_is_inflated(tmp_path) -> None:
    # 64 MB of zeros: deflated to ~60 KB, the shape of a zip bomb.
    state = {"model_config": preset("tiny").to_dict(), "model": {"w": torch.zeros(16_000_000)}}
    bomb = deflated_copy(write_checkpoint(tmp_path / "plain.pt", state), tmp_path / "bomb.pt")
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(ValueError, match="bomb.pt.*compressed"):
        read_checkpoint(bomb)


def test_a_legacy_torch_file_is_refused(tmp_path) -> None:
    # The pre-zip torch format allocates each storage at the size the file names before reading it.
    path = tmp_path / "legacy.pt"
    torch.save({"meta": "{}", "sha256": "0", "tensors": {}}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match="legacy.pt.*not the zip archive"):
        read_checkpoint(path)


def test_deeply_nested_metadata_is_refused(tmp_path) -> None:
    meta = "[" * 200_000 + "]" * 200_000
    path = tmp_path / "nested.pt"
    torch.save({"meta": meta, "sha256": payload_sha256(meta, {}), "tensors": {}}, path)
    with pytest.raises(ValueError, match="nested.pt has corrupt metadata"):
        read_checkpoint(path)


def test_a_whole_number_in_a_float_field_builds_a_float_network(tiny_checkpoint, tmp_path) -> None:
    # A hand-written config says 1 for 1.0; the network must not get an integer tensor from it.
    # (The initial scale only seeds the gains; the stored ones replace them, so the file loads.)
    net = load_network(crafted(tiny_checkpoint, tmp_path / "whole.pt", layer_scale_init=7))
    assert net.config.layer_scale_init == 7.0 and isinstance(net.config.layer_scale_init, float)
    weights = ModelConfig.from_dict({**PRESETS["tiny"].to_dict(), "loss_weights": {"policy": 2}}).loss_weights
    assert isinstance(weights.policy, float)


@pytest.mark.parametrize("step", [-5, 10**30, 2**63, True], ids=["negative", "1e30", "2^63", "bool"])
def test_a_step_that_counts_no_steps_is_refused_by_name(tiny_checkpoint, tmp_path, step) -> None:
    state = {k: v for k, v in read_checkpoint(tiny_checkpoint).items() if k not in ("format", "version")}
    state["step"] = step
    bad = write_checkpoint(tmp_path / "bad_step.pt", state)
    for load in (load_checkpoint, Trainer.resume):
        with pytest.raises(ValueError, match=r"bad_step\.pt: 'step' is .*not a step count from 0 to 1000000000000"):
            load(bad)


def test_a_step_within_range_resumes_there(tiny_checkpoint, tmp_path) -> None:
    state = {k: v for k, v in read_checkpoint(tiny_checkpoint).items() if k not in ("format", "version")}
    state["step"] = 7
    assert Trainer.resume(write_checkpoint(tmp_path / "step7.pt", state)).step == 7
