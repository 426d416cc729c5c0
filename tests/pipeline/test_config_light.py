"""Reading a run's config or a preset loads nothing heavy: the config modules
(pipeline/config.py and the sections' settings modules) import the standard library and the
compiled core alone, and the packages' `__init__` files load their heavy modules on first use.
Each check runs in a fresh interpreter, where nothing was imported before it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from popucom.pipeline.config import pipeline_preset
from popucom.torch_first import torch_must_load_first

HEAVY = ("torch", "numpy", "onnx", "onnxruntime", "openvino", "PySide6")
READ = """
import json, sys
from popucom.pipeline.config import PIPELINE_PRESETS, PipelineConfig, pipeline_preset
for name in PIPELINE_PRESETS:
    pipeline_preset(name)
config = PipelineConfig.load(sys.argv[1])
from popucom.selfplay import SelfPlayConfig
from popucom.train import TrainConfig
assert (type(config.selfplay), type(config.train)) == (SelfPlayConfig, TrainConfig)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)))
"""


def read_config(run_config: Path, block: tuple[str, ...] = ()) -> list[str]:
    """The heavy modules in sys.modules once a fresh interpreter has read every preset and
    `run_config`, with the modules in `block` made unimportable (an import of one fails)."""
    blocker = "".join(f"sys.modules[{name!r}] = None\n" for name in block)
    probe = f"import sys\nHEAVY = {HEAVY!r}\n{blocker}{READ}"
    out = subprocess.run(
        [sys.executable, "-c", probe, str(run_config)], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout)
    return [name for name in loaded if name.split(".")[0] not in block]


@pytest.fixture
def run_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    pipeline_preset("tiny").save(path)
    return path


def test_reading_a_config_needs_no_heavy_module(run_config: Path) -> None:
    """With torch, numpy and the runtimes unimportable, every preset and a run's config.json
    still read: no config module imports one, here or on a GPU machine."""
    assert read_config(run_config, block=HEAVY) == []


@pytest.mark.skipif(torch_must_load_first(), reason="a GPU build of torch loads with popucom (popucom.torch_first)")
def test_reading_a_config_loads_no_heavy_module(run_config: Path) -> None:
    assert read_config(run_config) == []
