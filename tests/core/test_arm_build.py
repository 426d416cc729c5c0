"""The C++ core on 64-bit ARM: the native suite cross-compiled with Debian's
g++-aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake) passes under qemu-user, and the native
forward's portable kernels on NEON give the outputs of the same kernels built for this x86-64
machine. Slow (a cross build and an emulated run, about two minutes): CI runs it with
POPUCOM_CROSS_TESTS=required, which fails it, rather than skipping it, where a tool is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from popucom.web.wasm_forward import SOURCES

ROOT = Path(__file__).resolve().parents[2]
CROSS = "aarch64-linux-gnu-g++"
EMULATOR = "qemu-aarch64"
SYSROOT = "/usr/aarch64-linux-gnu"
AARCH64_MACHINE = 183  # an ELF header's e_machine for 64-bit ARM
SHAPE = ["14", "32", "2", "2", "64", "16", "3"]  # planes, width, layers, heads, MLP, head hidden, legal plane

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cross_tools() -> None:
    missing = [tool for tool in (CROSS, EMULATOR) if shutil.which(tool) is None]
    if missing:
        reason = f"{', '.join(missing)} missing: apt-get install g++-aarch64-linux-gnu qemu-user"
        if os.environ.get("POPUCOM_CROSS_TESTS") == "required":
            pytest.fail(f"{reason} (POPUCOM_CROSS_TESTS=required)", pytrace=False)
        pytest.skip(reason)


def run(command: list[str], timeout: int = 900) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert done.returncode == 0, f"{' '.join(command)}:\n{(done.stdout + done.stderr)[-3000:]}"
    return done.stdout


def test_the_native_suite_passes_on_arm(cross_tools: None) -> None:
    build = ROOT / "build" / "arm64-tests"
    toolchain = ROOT / "cmake" / "aarch64-linux-gnu.cmake"
    run(["cmake", "-S", ".", "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_TOOLCHAIN_FILE={toolchain}"])
    run(["cmake", "--build", str(build), "--parallel", "2"])
    header = (build / "popucom_cpp_tests").read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and int.from_bytes(header[18:20], "little") == AARCH64_MACHINE
    output = run([EMULATOR, "-L", SYSROOT, str(build / "popucom_cpp_tests"), "--skip-slow"])
    assert " 0 failed" in output and " passed" in output, output[-2000:]


def forward_outputs(command: list[str]) -> np.ndarray:
    line = run(command).strip().splitlines()[-1]
    return np.array(json.loads(line)["outputs"], dtype=np.float64)


def test_the_forward_on_neon_gives_the_portable_kernels_outputs(cross_tools: None, tmp_path: Path) -> None:
    sources = [str(ROOT / "csrc" / source) for source in SOURCES]
    arm, here = tmp_path / "forward_bench_arm64", tmp_path / "forward_bench"
    flags = ["-std=c++17", "-O2", f"-I{ROOT / 'csrc'}"]
    run([CROSS, *flags, *sources, "-lpthread", "-o", str(arm)])
    run(["g++", *flags, "-DPOPUCOM_BASELINE_ONLY", *sources, "-lpthread", "-o", str(here)])
    arguments = [*SHAPE, "0", "3"]  # SECONDS 0: the outputs of 3 positions
    on_arm = forward_outputs([EMULATOR, "-L", SYSROOT, str(arm), *arguments])
    on_x86 = forward_outputs([str(here), *arguments])
    assert len(on_arm) == len(on_x86) == 3 * (81 + 3 + 1 + 81)
    assert np.isfinite(on_arm).all() and np.ptp(on_arm) > 0
    np.testing.assert_allclose(on_arm, on_x86, rtol=1e-4, atol=1e-5)
