"""POPUCOM_CPU_ISA: the path of a CPU without AVX-512, taken on any CPU (each case in a fresh
process: the cap is read once)."""

import os
import subprocess
import sys

import pytest

from popucom import _core


def run_capped(cap: str, code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "POPUCOM_CPU_ISA": cap}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_the_levels_are_ordered_and_the_detected_one_is_among_them() -> None:
    assert _core.CPU_LEVELS == ("baseline", "avx2", "avx512", "avx512_bf16")
    assert _core.CPU_ISA_ENV == "POPUCOM_CPU_ISA"
    assert _core.detected_cpu_level() in _core.CPU_LEVELS
    if not os.environ.get("POPUCOM_CPU_ISA"):
        assert _core.cpu_level() == _core.detected_cpu_level()


@pytest.mark.parametrize("cap", ["baseline", "avx2"])
def test_a_cap_below_avx512_turns_every_avx512_path_off_and_keeps_the_float32_forward(cap) -> None:
    probe = (
        "from popucom import _core; from popucom.infer.precision import cpu_has_bf16, cpu_matmul_dtype; "
        "import torch; "
        "print(_core.cpu_level(), _core.native_net_supported(16, True), _core.native_net_supported(16, False), "
        "_core.pope_attention_bf16_dots_apply(16), cpu_has_bf16(), cpu_matmul_dtype('auto') == torch.float32)"
    )
    done = run_capped(cap, probe)
    assert done.returncode == 0, done.stderr
    level, *flags = done.stdout.split()
    want = min(_core.CPU_LEVELS.index(cap), _core.CPU_LEVELS.index(_core.detected_cpu_level()))
    assert level == _core.CPU_LEVELS[want]
    assert flags == ["False", "True", "False", "False", "True"]


def test_an_unknown_cap_is_refused_naming_the_variable_and_the_choices() -> None:
    done = run_capped("avx3", "from popucom import _core; _core.cpu_level()")
    assert done.returncode != 0
    assert (
        "ValueError: POPUCOM_CPU_ISA: unknown instruction-set level 'avx3' (choose auto, baseline, avx2" in done.stderr
    )
