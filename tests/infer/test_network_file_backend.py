"""The native backend on a network file (.pcnet): the same outputs as on the checkpoint it was
written from, picked by `auto`, refused by name by the other backends and when damaged, and
playable by the engine in a process where torch cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from popucom import _core
from popucom.cli import main
from popucom.data.positions import random_features
from popucom.infer import load_evaluator
from popucom.infer.native_backend import NativeEvaluator
from popucom.nn.checkpoint import load_network
from popucom.weights import weights_dir

CHECKPOINT = weights_dir() / "popucom-small-v12.pt"

needs_float_native = pytest.mark.skipif(
    not _core.native_net_supported(16, bf16=False), reason="this build has no kernels for heads of width 16"
)


@pytest.fixture(scope="module")
def network_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pcnet") / "v12.pcnet"
    assert main(["export", "--checkpoint", str(CHECKPOINT), "--out", str(out)]) == 0
    return out


@needs_float_native
def test_auto_runs_a_network_file_natively_with_the_checkpoints_outputs(network_file: Path) -> None:
    from_file = load_evaluator(network_file)
    assert isinstance(from_file, NativeEvaluator) and "v12.pcnet" in from_file.describe()
    from_checkpoint = NativeEvaluator.of_network(load_network(CHECKPOINT))
    assert from_file.feature_version == from_checkpoint.feature_version == _core.FEATURE_VERSION
    assert from_file.output_names == from_checkpoint.output_names
    x = random_features(9, seed=4)
    a, b = from_file.run_all(x), from_checkpoint.run_all(x)
    for name in from_file.output_names:
        np.testing.assert_array_equal(a[name], b[name])


@pytest.mark.parametrize("backend", ["onnx", "openvino", "torch"])
def test_other_backends_refuse_a_network_file_by_name(network_file: Path, backend: str) -> None:
    with pytest.raises(ValueError, match="a network file runs only on the native backend"):
        load_evaluator(network_file, backend=backend)


def test_a_damaged_network_file_is_refused_naming_the_file(network_file: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.pcnet"
    cut.write_bytes(network_file.read_bytes()[:5000])
    with pytest.raises(ValueError, match=r"cut\.pcnet: network file: cut short in "):
        load_evaluator(cut)
    text = tmp_path / "notes.pcnet"
    text.write_text("not a network")
    with pytest.raises(ValueError, match=r"notes\.pcnet: network file: not a popucom network file"):
        load_evaluator(text)


ENGINE_WITHOUT_TORCH = """
import sys
sys.modules["torch"] = None  # any `import torch` now fails
from popucom.cli import main
sys.exit(main(["engine", "--player", sys.argv[1] + "@visits=24"]))
"""


@needs_float_native
def test_the_engine_plays_a_network_file_without_torch(network_file: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ENGINE_WITHOUT_TORCH, str(network_file)],
        input="genmove b\nplay w a9\ngenmove b\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    moves = [line[2:] for line in done.stdout.splitlines() if line.startswith("= ") and line != "= "]
    assert len(moves) == 2 and all(len(m) == 2 for m in moves), done.stdout
    assert "v12.pcnet" in done.stderr


BENCH = Path(__file__).parents[2] / "bench" / "engine_start.py"  # a script: run, not imported


def test_the_start_benchmark_times_every_kind_of_model_file() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--model", str(CHECKPOINT), "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line["benchmark"] == "engine_start" and set(line["seconds"]) == {"network_file", "checkpoint", "onnx"}
    assert all(s > 0 for s in line["seconds"].values()) and line["over_network_file"]["network_file"] == 1.0
