"""The native forward compiled to WebAssembly (popucom.web.wasm_forward, run in Node.js) gives
the outputs of the same portable kernels compiled natively: the candidate for the page's
network computes what the native backend computes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from popucom.web.toolchain import MissingToolError, find_toolchain
from popucom.web.wasm_forward import SOURCES, build_forward_bench, node_command

ROOT = Path(__file__).resolve().parents[2]
SHAPE = ["14", "32", "2", "2", "64", "16", "3"]  # planes, width, layers, heads, MLP, head hidden, legal plane


def outputs(command: list[str], env: dict[str, str] | None = None) -> np.ndarray:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return np.array(json.loads(done.stdout.strip().splitlines()[-1])["outputs"], dtype=np.float64)


def test_the_wasm_forward_matches_the_native_build_of_its_kernels(tmp_path) -> None:
    try:
        tools = find_toolchain()
    except MissingToolError as e:
        pytest.skip(str(e))
    js = build_forward_bench(ROOT / "csrc", "simd128", tmp_path / "wasm", tools)
    native = tmp_path / "forward_bench"
    compiled = subprocess.run(
        ["g++", "-std=c++17", "-O2", "-DPOPUCOM_BASELINE_ONLY", f"-I{ROOT / 'csrc'}",
         *(str(ROOT / "csrc" / source) for source in SOURCES), "-lpthread", "-o", str(native)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr[-2000:]
    arguments = [*SHAPE, "0", "3"]  # SECONDS 0: the outputs of 3 positions
    in_wasm = outputs(node_command(tools, js, arguments), env=tools.env)
    here = outputs([str(native), *arguments])
    assert len(in_wasm) == len(here) == 3 * (81 + 3 + 1 + 81)
    assert np.isfinite(in_wasm).all() and np.ptp(in_wasm) > 0
    np.testing.assert_allclose(in_wasm, here, rtol=1e-4, atol=1e-5)
