"""bench/attention_kernel.py: the attention kernel alone, one JSON line."""

import json
import subprocess
import sys
from pathlib import Path

from popucom import _core

BENCH = Path(__file__).parents[2] / "bench" / "attention_kernel.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=120)


def test_times_every_variant_this_cpu_has_at_every_batch() -> None:
    done = run("--batches", "1", "3", "--repeats", "1", "--min-seconds", "0.01")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["benchmark"] == "attention_kernel" and result["machine"]["logical_cores"] >= 1
    want = {"fp32", "bf16"} | ({"bf16_dots"} if _core.pope_attention_bf16_dots_apply(16) else set())
    assert set(result["microseconds"]) == want
    for name, row in result["microseconds"].items():
        assert set(row) == {"1", "3"} and all(us > 0 for us in row.values()), name
        rates = result["positions_per_s"][name]
        assert rates["3"] == round(3 / (row["3"] * 1e-6))


def test_refuses_a_batch_of_zero() -> None:
    done = run("--batches", "0", "--repeats", "1")
    assert done.returncode != 0 and "at least 1" in done.stderr
