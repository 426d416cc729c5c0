"""A backend the machine cannot run is refused before the pipeline does any work
(popucom/infer/preflight.py): not after a warm start of half an hour."""

import dataclasses
import os
import subprocess
import sys

import pytest

from popucom.infer.preflight import check_backend
from popucom.nn.config import preset

CLI = [sys.executable, "-m", "popucom.cli"]


def test_bf16_products_on_a_cpu_without_them_fail_at_once(tmp_path) -> None:
    run = tmp_path / "run"
    # POPUCOM_CPU_ISA=avx2 caps the kernels as a CPU without AVX-512 has them.
    env = dict(os.environ, POPUCOM_CPU_ISA="avx2", POPUCOM_CPU_MATMUL="bf16")
    out = subprocess.run(
        [*CLI, "pipeline", "--run-dir", str(run), "--preset", "tiny", "--backend", "native", "--iterations", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2, out.stderr
    assert "error: popucom pipeline: POPUCOM_CPU_MATMUL=bf16: this CPU has no bf16 arithmetic" in out.stderr
    assert "Traceback" not in out.stderr
    assert not (run / "checkpoints" / "iter_0000.pt").exists()  # no network made, no warm start begun


def test_the_native_backend_passes_on_every_cpu_level() -> None:
    for cap in ("baseline", "avx2"):
        code = (
            "from popucom.infer.preflight import check_backend; from popucom.nn import preset; "
            "check_backend('native', 'cpu', preset('small')); print('ok')"
        )
        env = dict(os.environ, POPUCOM_CPU_ISA=cap)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == "ok", out.stderr


def test_settings_that_cannot_work_are_refused_by_name(monkeypatch) -> None:
    with pytest.raises(ValueError, match="unknown backend 'fast'"):
        check_backend("fast", "cpu")
    with pytest.raises(ValueError, match="the openvino backend runs on the CPU, not on device 'cuda'"):
        check_backend("openvino", "cuda")
    with pytest.raises(ValueError, match="the TensorRT backend runs on a GPU"):
        check_backend("trt", "cpu")
    monkeypatch.setenv("POPUCOM_CPU_MATMUL", "fp64")
    with pytest.raises(ValueError, match="POPUCOM_CPU_MATMUL: unknown CPU matmul precision 'fp64'"):
        check_backend("auto", "cpu")
    monkeypatch.setenv("POPUCOM_CPU_MATMUL", "fp32")
    check_backend("auto", "cpu", preset("small"))
    check_backend("onnx", "cpu")
    check_backend("native", "cpu", preset("small"))
    mhc = dataclasses.replace(preset("small"), mhc=True)
    with pytest.raises(ValueError, match="the native backend cannot run this network"):
        check_backend("native", "cpu", mhc)
