"""A model file reads nothing but itself: a tensor stored outside the file, wherever it sits in the
graph, is refused by the shared check (popucom.nn.export.read_metadata) before any runtime sees
the file, through every loader, run from a working directory that holds the file it names."""

import numpy as np
import onnx
import pytest
import torch
from crafted_onnx import crafted

from popucom.infer import load_evaluator
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx, external_tensor, read_metadata


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    torch.manual_seed(0)
    return export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path_factory.mktemp("external") / "good.onnx")


@pytest.fixture
def elsewhere(tmp_path, monkeypatch, good):
    """A working directory and a model folder that both hold the file the crafted tensors name
    (OpenVINO resolves a location against the first, ONNX Runtime against the second)."""
    folder = tmp_path / "models"
    folder.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    secret = np.full(81, -50.0, np.float32)
    secret[40] = 50.0
    for place in (folder, cwd):
        (place / "secret.bin").write_bytes(secret.tobytes())
    monkeypatch.chdir(cwd)
    paths = {}
    for i, (placement, model) in enumerate(crafted(good).items()):
        path = folder / f"crafted{i}.onnx"
        path.write_bytes(model.SerializeToString())
        paths[placement] = path
    return paths


def test_the_good_model_has_no_external_tensor(good) -> None:
    assert external_tensor(onnx.load(str(good))) is None
    assert read_metadata(good)["popucom_format"] == "popucom-onnx"


def test_every_placement_is_refused_by_every_loader(elsewhere) -> None:
    backends = ["onnx"]
    try:
        import openvino  # noqa: F401

        backends.append("openvino")
    except ImportError:
        pass
    for placement, path in elsewhere.items():
        with pytest.raises(ValueError, match=f"{path.name}: External data: tensor"):
            read_metadata(path)
        for backend in backends:
            with pytest.raises(ValueError, match=f"{path.name}: External data"):
                load_evaluator(path, backend=backend)
        assert placement  # named in the failure's traceback
