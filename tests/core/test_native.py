"""Builds and runs the native C++ test executable (csrc/tests) with CMake."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "native-tests"


def cmake() -> str:
    found = shutil.which("cmake")
    if found is None:
        pytest.skip("cmake is not installed (pip install '.[dev]' brings it)")
    return found


def built_test_runner() -> Path:
    exe = cmake()
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        [exe, "-S", str(ROOT), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release", *generator],
        check=True,
        capture_output=True,
        text=True,
    )
    jobs = str(os.cpu_count() or 1)
    built = subprocess.run([exe, "--build", str(BUILD), "--parallel", jobs], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    return BUILD / "popucom_cpp_tests"


def run_cases(*args: str) -> str:
    run = subprocess.run([str(built_test_runner()), *args], capture_output=True, text=True, timeout=600)
    sys.stdout.write(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout
    return run.stdout


def test_native_cpp_suite() -> None:
    """Every case but the few slow ones (solver against plain alpha-beta, the endgame choice's
    whole table), which ctest (the sanitizer builds in CI) and the slow test below run."""
    out = run_cases("--skip-slow")
    assert " 0 slow skipped" not in out  # the slow cases exist and are left to the slow run


@pytest.mark.slow
def test_native_cpp_suite_with_the_slow_cases() -> None:
    assert " 0 slow skipped" in run_cases()
