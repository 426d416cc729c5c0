"""Threads on shared cores: the OpenMP wait policy every entry point starts with (popucom.cpu_load),
the adaptive budget, the CPU quota and the busy-machine warnings (popucom.infer.threads), and
bench/oversubscription.py's quick mode. No timings are asserted: what these pin down is which
policy libgomp runs with and which thread counts are chosen from given loads."""

import importlib.util
import json
import logging
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from popucom import cpu_load
from popucom.infer import threads

ROOT = Path(__file__).resolve().parents[2]
ENTRY_MODULES = ["popucom", "popucom.cli", "popucom.engine.gtp", "popucom.pipeline.run", "popucom.gui.app"]


@pytest.fixture(scope="module")
def busy_core():
    """Another process keeping a core busy while the module's fresh Pythons start."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield busy.pid
    finally:
        busy.kill()
        busy.wait()


def libgomp_settings(code: str, **env: str) -> tuple[dict[str, str], str]:
    """The wait settings libgomp reports at load (OMP_DISPLAY_ENV) in a fresh Python running
    `code`, which prints os.environ's OMP_WAIT_POLICY; the wait variables come only from `env`."""
    clean = {k: v for k, v in os.environ.items() if k not in cpu_load.WAIT_VARIABLES}
    clean.update(env, OMP_DISPLAY_ENV="VERBOSE")
    done = subprocess.run(
        [sys.executable, "-c", code + "; import os; print(os.environ.get('OMP_WAIT_POLICY'))"],
        env=clean, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    shown = {}
    for line in done.stderr.splitlines():
        name, sep, value = line.strip().partition(" = ")
        if sep and name in cpu_load.WAIT_VARIABLES:
            shown[name] = value.strip("'")
    return shown, done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_every_entry_point_started_on_a_busy_machine_gets_sleeping_openmp_threads(module: str, busy_core) -> None:
    if module == "popucom.gui.app" and importlib.util.find_spec("PySide6") is None:
        pytest.skip("the GUI needs PySide6")
    # torch (and with it libgomp) loads with the first module that needs it, after the entry point
    shown, policy = libgomp_settings(f"import {module}; import torch")
    assert shown["GOMP_SPINCOUNT"] == "0"  # libgomp itself took the passive policy: no spinning
    assert policy == "PASSIVE"  # and children (pipeline workers, the arena's engines) inherit it


@pytest.mark.parametrize(
    ("env", "want"),
    [
        ({"OMP_WAIT_POLICY": "ACTIVE"}, {"OMP_WAIT_POLICY": "ACTIVE"}),
        ({"GOMP_SPINCOUNT": "12345"}, {"GOMP_SPINCOUNT": "12345"}),
    ],
)
def test_a_wait_policy_the_user_chose_is_kept(env: dict[str, str], want: dict[str, str], busy_core) -> None:
    shown, policy = libgomp_settings("import popucom.cli; import torch", **env)
    for name, value in want.items():
        assert shown[name] == value
    assert policy == env.get("OMP_WAIT_POLICY", "None")  # nothing added beside the user's choice


def test_torch_imported_first_keeps_libgomps_spinning_default_and_is_told_apart(busy_core) -> None:
    shown, policy = libgomp_settings("import torch, popucom")
    assert shown["GOMP_SPINCOUNT"] == str(threads.LIBGOMP_SPIN_COUNT)
    assert policy == "None"  # popucom does not claim a policy libgomp never read
    assert threads.openmp_spin_count({}) == threads.LIBGOMP_SPIN_COUNT
    assert "torch was loaded first" in threads.spinning_advice({})


def test_the_policy_follows_the_load_as_torch_loads(monkeypatch) -> None:
    environ: dict[str, str] = {}
    assert cpu_load.default_openmp_wait(environ, modules={}, others=0.2) is None  # idle: libgomp's spinning
    assert environ == {}
    assert cpu_load.default_openmp_wait(environ, modules={}, others=1.0) == "PASSIVE"
    assert environ == {"OMP_WAIT_POLICY": "PASSIVE"}
    for chosen in ({"OMP_WAIT_POLICY": "active"}, {"GOMP_SPINCOUNT": "7"}):
        assert cpu_load.default_openmp_wait(dict(chosen), modules={}, others=2.0) is None
    assert cpu_load.default_openmp_wait({}, modules={"torch": object()}, others=2.0) is None
    monkeypatch.setattr(cpu_load, "others_busy_now", lambda: None)  # no /proc: nothing chosen
    assert cpu_load.default_openmp_wait({}, modules={}) is None


def test_other_load_leaves_this_process_out() -> None:
    load = cpu_load.OtherLoad()
    end = time.monotonic() + 0.3
    while time.monotonic() < end:  # this process busy: none of it is other load
        pass
    others = load.read()
    assert others is not None and 0.0 <= others <= threads.affinity_cores()
    assert cpu_load.runnable_tasks() >= 1


def test_spin_counts_as_libgomp_reads_them() -> None:
    assert threads.openmp_spin_count({"OMP_WAIT_POLICY": "passive"}) == 0
    assert threads.openmp_spin_count({"OMP_WAIT_POLICY": "ACTIVE"}) == math.inf
    assert threads.openmp_spin_count({"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "500"}) == 500
    assert threads.openmp_spin_count({"GOMP_SPINCOUNT": "infinite"}) == math.inf
    assert threads.openmp_spin_count({"GOMP_SPINCOUNT": "many"}) == threads.LIBGOMP_SPIN_COUNT


def test_warnings_with_injected_load_and_quota() -> None:
    spinning, passive = {}, {"OMP_WAIT_POLICY": "PASSIVE"}
    busy = threads.contention_warning(2, cores=2, quota=None, others=1.0, environ=spinning)
    assert busy is not None and "other processes keep 1.0 of 2 cores busy" in busy
    assert "spin 300000 times" in busy and "OMP_WAIT_POLICY=PASSIVE" in busy and "--threads 1" in busy
    assert threads.contention_warning(2, cores=2, quota=None, others=0.2, environ=spinning) is None  # idle
    assert threads.contention_warning(2, cores=2, quota=None, others=1.5, environ=passive) is None  # sleeps
    assert threads.contention_warning(1, cores=2, quota=0.5, others=9.0, environ=spinning) is None  # one thread
    assert threads.contention_warning(2, cores=16, quota=None, others=3.0, environ=spinning) is None  # free cores
    quota = threads.contention_warning(4, cores=16, quota=2.5, others=0.0, environ=passive)
    assert quota is not None and "quota of 2.5 cores" in quota and "--threads 2" in quota
    assert "GOMP_SPINCOUNT=9" in threads.contention_warning(2, 2, None, 2.0, {"GOMP_SPINCOUNT": "9"})


def test_set_torch_threads_warns_once_on_a_busy_machine(monkeypatch, caplog) -> None:
    import torch

    previous = torch.get_num_threads()
    monkeypatch.setattr(threads, "others_busy_now", lambda: 1.0)
    monkeypatch.setattr(threads, "affinity_cores", lambda: 2)
    monkeypatch.setattr(threads, "cpu_quota", lambda: None)
    monkeypatch.setattr(threads, "_warned", set())
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    try:
        with caplog.at_level(logging.WARNING, logger=threads.__name__):
            threads.set_torch_threads(2)
            threads.set_torch_threads(2)
        assert [r.getMessage() for r in caplog.records].count(threads.warn_if_contended(2)) == 1
        caplog.clear()
        monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
        with caplog.at_level(logging.WARNING, logger=threads.__name__):
            threads.set_torch_threads(2)
        assert not caplog.records
    finally:
        torch.set_num_threads(previous)


def test_adaptive_threads_are_the_free_cores_of_the_budget() -> None:
    assert threads.adaptive_threads(2, cores=2, others=0.0) == 2
    assert threads.adaptive_threads(2, cores=2, others=0.4) == 2  # less than half a core busy: still free
    assert threads.adaptive_threads(2, cores=2, others=0.7) == 1
    assert threads.adaptive_threads(2, cores=2, others=3.0) == 1  # never none
    assert threads.adaptive_threads(4, cores=16, others=3.0) == 4  # the budget, where cores are left
    assert threads.adaptive_threads(8, cores=8, others=2.2) == 6
    assert threads.adaptive_threads(2, cores=2, others=None) == 2  # unknown load: the budget


class FixedLoad:
    """An OtherLoad whose readings the test sets."""

    others: float | None = 0.0

    def read(self) -> float | None:
        return FixedLoad.others


def test_the_torch_evaluator_yields_threads_to_a_busy_machine_and_restores_the_budget(monkeypatch, caplog) -> None:
    import torch

    from popucom.data.positions import random_features
    from popucom.infer.torch_backend import TorchEvaluator
    from popucom.nn import PopucomNet, preset

    previous = torch.get_num_threads()
    monkeypatch.setattr(threads, "OtherLoad", FixedLoad)
    monkeypatch.setattr(threads, "affinity_cores", lambda: 2)
    monkeypatch.setattr(threads, "_warned", set())
    monkeypatch.delenv(threads.ADAPT_ENV, raising=False)
    monkeypatch.setenv("GOMP_SPINCOUNT", "300000")  # what the warning is about
    try:
        evaluator = TorchEvaluator(PopucomNet(preset("tiny")).eval(), threads=2)
        evaluator.budget.interval = 0.0
        used = []
        forward = evaluator.forward
        evaluator.forward = lambda x: (used.append(torch.get_num_threads()), forward(x))[1]
        x = random_features(3, seed=1)
        FixedLoad.others = 0.0
        idle = evaluator.run_all(x)
        FixedLoad.others = 1.0
        with caplog.at_level(logging.WARNING, logger=threads.__name__):
            busy = evaluator.run_all(x)
        assert used == [2, 1] and torch.get_num_threads() == 2  # the process's budget is back
        assert any("runs on 1 of its 2 threads" in r.getMessage() for r in caplog.records)
        for name in idle:
            np.testing.assert_allclose(busy[name], idle[name], rtol=1e-5, atol=1e-5)
        FixedLoad.others = 0.0
        evaluator.run_all(x)
        assert used[-1] == 2
        monkeypatch.setenv(threads.ADAPT_ENV, "off")
        fixed = TorchEvaluator(PopucomNet(preset("tiny")).eval(), threads=2)
        assert not fixed.budget.adapt and "fewer while" not in fixed.describe()
        FixedLoad.others = 1.0
        assert fixed.budget() == 2
        monkeypatch.setenv(threads.ADAPT_ENV, "sometimes")
        with pytest.raises(ValueError, match="POPUCOM_ADAPTIVE_THREADS: unknown choice 'sometimes'"):
            threads.AdaptiveBudget(2)
    finally:
        torch.set_num_threads(previous)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_cpu_quota_is_the_smallest_on_the_way_up_from_the_process_cgroup(tmp_path: Path) -> None:
    v2 = tmp_path / "v2"
    write(v2 / "cpu.max", "max 100000\n")
    write(v2 / "outer" / "cpu.max", "150000 100000\n")
    write(v2 / "outer" / "job" / "cpu.max", "max 100000\n")
    write(tmp_path / "v2.cgroup", "0::/outer/job\n")
    assert threads.cpu_quota(v2, tmp_path / "v2.cgroup") == 1.5
    v1 = tmp_path / "v1"
    write(v1 / "cpu,cpuacct" / "job" / "cpu.cfs_quota_us", "300000\n")
    write(v1 / "cpu,cpuacct" / "job" / "cpu.cfs_period_us", "100000\n")
    write(v1 / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n")
    write(v1 / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n")
    write(tmp_path / "v1.cgroup", "4:memory:/job\n3:cpu,cpuacct:/job\n0::/\n")
    assert threads.cpu_quota(v1, tmp_path / "v1.cgroup") == 3.0
    write(tmp_path / "none.cgroup", "0::/\n")
    assert threads.cpu_quota(v2 / "outer" / "job", tmp_path / "none.cgroup") is None
    assert threads.cpu_quota(tmp_path / "missing", tmp_path / "missing.cgroup") is None


def test_the_all_cores_budget_stops_at_the_quota(monkeypatch) -> None:
    monkeypatch.setattr(threads, "affinity_cores", lambda: 8)
    monkeypatch.setattr(threads, "cpu_quota", lambda: 2.5)
    assert threads.resolve_threads(0) == 2 and threads.resolve_threads(None) == 2
    assert threads.resolve_threads(6) == 6  # an explicit budget is the user's (and warned about)
    monkeypatch.setattr(threads, "cpu_quota", lambda: 0.5)
    assert threads.machine_threads() == 1
    monkeypatch.setattr(threads, "cpu_quota", lambda: None)
    assert threads.machine_threads() == 8


def test_oversubscription_bench_quick_prints_one_json_line() -> None:
    env = {k: v for k, v in os.environ.items() if k not in cpu_load.WAIT_VARIABLES}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "oversubscription.py"), "--quick"],
        env=env, capture_output=True, text=True, timeout=240, check=True, cwd=ROOT,
    )  # fmt: skip
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["benchmark"] == "oversubscription" and report["threads"] == [1, 2]
    figures = report["policies"]["current"]
    for load in ("idle", "later"):
        assert set(figures["latency_ms"][load]["torch"]["1"]) == {"1", "2"}
        assert all(v > 0 for v in figures["latency_ms"][load]["torch"]["1"].values())
        assert figures["ratio_2_over_1_threads"][load]["torch"]["1"] > 0
        assert set(figures["train_step_ms"][load]) == {"1", "2", "2_adaptive"}
        assert figures["background_cores"][load] >= 0
    assert set(figures["cpu_cores"]) == {"idle", "later"} and "torch/2" in figures["describe"]
    assert set(figures["openmp_spin_count"]) == {"idle", "later"} and figures["torch_threads_used"]["later"]
    machine = report["machine"]
    for key in ("cpu", "cpu_flags", "logical_cores", "affinity_cores", "cpu_quota_cores", "torch", "env"):
        assert key in machine
    assert set(machine["env"]) >= {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "POPUCOM_CPU_MATMUL"}
