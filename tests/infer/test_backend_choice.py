"""What `auto` picks (popucom.infer.choice) for each kind of model and machine, the factory
loading that choice, and the native backend on a CPU capped below AVX-512."""

import importlib.util
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from popucom.infer import load_evaluator
from popucom.infer.choice import Machine, choose_backend
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx
from popucom.train import Trainer

HAS_OPENVINO = importlib.util.find_spec("openvino") is not None
needs_openvino = pytest.mark.skipif(not HAS_OPENVINO, reason="openvino is not installed")
AVX512 = Machine("avx512_bf16", openvino=True)
AVX2 = Machine("avx2", openvino=True)
AVX2_WITHOUT_OPENVINO = Machine("avx2", openvino=False)
MHC = "it serves the attention-residual network without mHC"
BESIDE = Path("model.onnx")


@pytest.mark.parametrize(
    "kind, device, machine, refusal, exported, backend",
    [
        ("checkpoint", "cpu", AVX512, None, BESIDE, "native"),
        ("checkpoint", "cpu", Machine("avx512", openvino=False), None, None, "native"),
        ("checkpoint", "cpu", AVX512, MHC, BESIDE, "openvino"),
        ("checkpoint", "cpu", AVX512, MHC, None, "torch"),
        ("checkpoint", "cpu", AVX2, None, BESIDE, "native"),
        ("checkpoint", "cpu", Machine("baseline", openvino=True), None, BESIDE, "native"),
        ("checkpoint", "cpu", AVX2, None, None, "native"),
        ("checkpoint", "cpu", AVX2_WITHOUT_OPENVINO, None, BESIDE, "native"),
        ("checkpoint", "cpu", AVX2, MHC, BESIDE, "openvino"),
        ("checkpoint", "cpu", AVX2, MHC, None, "torch"),
        ("checkpoint", "cpu", AVX2_WITHOUT_OPENVINO, MHC, BESIDE, "torch"),
        ("checkpoint", "cuda", AVX512, None, BESIDE, "torch"),
        ("onnx", "cpu", AVX512, None, None, "openvino"),
        ("onnx", "cpu", AVX2_WITHOUT_OPENVINO, None, None, "onnx"),
        ("onnx", "cuda", AVX2, None, None, "onnx"),
        ("plan", "cuda", AVX2, None, None, "trt"),
    ],
)
def test_the_rule(kind, device, machine, refusal, exported, backend) -> None:
    choice = choose_backend(kind, device, machine, refusal, exported)
    assert choice.backend == backend and choice.why


def test_a_fallback_says_why() -> None:
    assert "openvino is not installed" in choose_backend("checkpoint", "cpu", AVX2_WITHOUT_OPENVINO, MHC, BESIDE).why
    assert "no exported model" in choose_backend("checkpoint", "cpu", AVX2, MHC, None).why
    assert f"the native forward {MHC}" in choose_backend("checkpoint", "cpu", AVX2, MHC, BESIDE).why


def ship(folder: Path, mhc: bool = False) -> Path:
    """A checkpoint with its exported model beside it, as weights/ ships them."""
    torch.manual_seed(2)
    trainer = Trainer(preset("tiny", mhc=mhc))
    checkpoint = trainer.save(folder / "popucom-tiny-v1.pt")
    export_onnx(trainer.model.eval(), folder / "popucom-tiny-v1.onnx")
    return checkpoint


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    return ship(tmp_path_factory.mktemp("shipped"))


@pytest.fixture(scope="module")
def shipped_mhc(tmp_path_factory) -> Path:
    """One the native forward does not serve, so that `auto` takes the next path."""
    return ship(tmp_path_factory.mktemp("shipped_mhc"), mhc=True)


def describe(evaluator) -> str:
    return evaluator.describe()


@needs_openvino
def test_auto_loads_openvino_beside_a_checkpoint_the_native_forward_does_not_serve(shipped_mhc, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="popucom.infer")
    evaluator = load_evaluator(shipped_mhc, machine=AVX2)
    assert describe(evaluator).startswith("openvino") and "popucom-tiny-v1.onnx" in describe(evaluator)
    assert any("backend auto: openvino" in line for line in caplog.messages)
    assert describe(load_evaluator(shipped_mhc.with_suffix(".onnx"), machine=AVX2)).startswith("openvino")


@needs_openvino
def test_an_exported_model_of_another_network_beside_is_not_used(shipped_mhc, tmp_path, caplog) -> None:
    checkpoint = tmp_path / "popucom-tiny-v2.pt"
    checkpoint.write_bytes(shipped_mhc.read_bytes())
    torch.manual_seed(9)
    export_onnx(PopucomNet(preset("tiny", mhc=True)).eval(), tmp_path / "popucom-tiny-v2.onnx")  # other weights
    evaluator = load_evaluator(checkpoint, machine=AVX2)
    assert describe(evaluator).startswith("torch cpu")
    assert any("is not the network of popucom-tiny-v2.pt" in line for line in caplog.messages)


def test_auto_without_openvino_runs_torch_and_onnxruntime(shipped_mhc) -> None:
    assert describe(load_evaluator(shipped_mhc, machine=AVX2_WITHOUT_OPENVINO)).startswith("torch cpu")
    assert describe(load_evaluator(shipped_mhc.with_suffix(".onnx"), machine=AVX2_WITHOUT_OPENVINO)).startswith(
        "onnxruntime cpu"
    )


def test_torch_is_always_torch(shipped) -> None:
    assert describe(load_evaluator(shipped, backend="torch")).startswith("torch cpu")


@pytest.mark.skipif(
    __import__("popucom")._core.cpu_level() not in ("avx512", "avx512_bf16"), reason="no AVX-512 kernels here"
)
def test_auto_and_native_run_the_native_forward_with_avx512(shipped) -> None:
    assert describe(load_evaluator(shipped)).startswith("native cpu (whole network in C++")
    mhc = Trainer(preset("tiny", mhc=True)).save(shipped.parent / "mhc.pt")
    with pytest.raises(ValueError, match="the native backend cannot run this network: it serves the attention-res"):
        load_evaluator(mhc, backend="native")
    assert not describe(load_evaluator(mhc)).startswith("native")  # auto takes the next path


@pytest.mark.parametrize("cap", ["baseline", "avx2"])
def test_native_runs_in_fp32_on_a_cpu_capped_below_avx512(shipped, cap) -> None:
    code = (
        "from popucom.infer import load_evaluator\n"
        f"print(load_evaluator({str(shipped)!r}, backend='native').describe())\n"
    )
    env = {**os.environ, "POPUCOM_CPU_ISA": cap}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("native cpu (whole network in C++, fp32 products"), result.stdout


def test_native_refuses_an_exported_model(shipped) -> None:
    with pytest.raises(ValueError, match="the native backend loads training checkpoints"):
        load_evaluator(shipped.with_suffix(".onnx"), backend="native")
