"""CPU thread budgets for the networks.

Two processes that each use every core collapse (docs/benchmarks.md, "Threads on a shared
machine"), so every place that runs a network is given an explicit budget and the budgets add
up to the machine.

`set_torch_threads` is process-wide (torch has one intra-op pool per process); ONNX Runtime
takes its budget per session (`onnx_session_options`). Both use one thread between operators
(inter-op): the network is a chain, there is nothing to run beside it.

Waiting. torch's intra-op threads are the OpenMP team of the libgomp in torch's wheel (ldd
torch/lib/libtorch_cpu.so), and a team meets at a barrier after every parallel operator. By
default libgomp spins up to about 3 ms there (GOMP_SPINCOUNT 300000) before it sleeps. Where
other processes hold cores, the spinning thread keeps its core while its teammate waits for a
turn, at every one of the network's small operators: beside busy processes 2 threads take many
times as long as 1, for a call and for a training step. Shorter spins do not cure it, and
threads that always sleep (OMP_WAIT_POLICY=PASSIVE) cost the idle machine, where waking a
sleeping core is slow. bench/oversubscription.py measures all of this; the figures are in
docs/benchmarks.md, "Threads on a shared machine".

So the policy follows the machine:
- `import popucom` sets OMP_WAIT_POLICY=PASSIVE before it loads torch where another process
  keeps a core busy at that moment (popucom.cpu_load), unless the user set OMP_WAIT_POLICY or
  GOMP_SPINCOUNT; on an idle machine libgomp's spinning default stays.
- The torch evaluator runs its OpenMP calls (batches below its worker threads' size) on
  `AdaptiveBudget` threads: its budget less the cores other processes keep busy, re-measured
  every ADAPT_INTERVAL_S, so that beside a busy process it runs on one thread and meets no
  barrier at all. POPUCOM_ADAPTIVE_THREADS=off keeps the budget fixed (what a benchmark of a
  stated thread count wants).
- Where torch threads spin on a busy machine anyway (torch imported before popucom, the load
  arriving after the start, a user's policy), `set_torch_threads` and the adaptive budget
  warn once: training takes the budget as it is.
The native forward's threads (csrc/core/thread_pool.h), the torch evaluator's worker threads and
OpenVINO's TBB threads sleep when idle.

Budgets. `machine_threads` (the budget of `threads=0`) is the affinity mask's cores, capped by
a cgroup CPU quota (cpu.max): threads beyond a quota only take turns. `set_torch_threads` also
warns where a budget of several threads exceeds the quota.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from ..cpu_load import BUSY_CORES, OtherLoad, others_busy_now

logger = logging.getLogger(__name__)

LIBGOMP_SPIN_COUNT = 300_000  # libgomp's spins when neither variable is set (about 3 ms)
CGROUP_ROOT = Path("/sys/fs/cgroup")
ADAPT_ENV = "POPUCOM_ADAPTIVE_THREADS"
ADAPT_CHOICES = ("on", "off")
ADAPT_INTERVAL_S = 0.5  # how often the adaptive budget re-measures the other processes' load
_warned: set[str] = set()


def openmp_spin_count(environ: Mapping[str, str] | None = None) -> float:
    """The spins libgomp makes before an idle thread sleeps, from the variables it reads at load
    (math.inf for OMP_WAIT_POLICY=ACTIVE alone, 0 for PASSIVE; GOMP_SPINCOUNT wins over both)."""
    environ = os.environ if environ is None else environ
    count = environ.get("GOMP_SPINCOUNT", "").strip().lower()
    if count in ("infinite", "infinity"):
        return math.inf
    if count:
        try:
            return float(count)
        except ValueError:
            pass  # libgomp ignores a malformed value
    policy = environ.get("OMP_WAIT_POLICY", "").strip().lower()
    return {"active": math.inf, "passive": 0.0}.get(policy, float(LIBGOMP_SPIN_COUNT))


def _quota_in(folder: Path) -> float | None:
    """The quota set in one cgroup folder, in cores (v2 cpu.max or v1 cpu.cfs_quota_us), or None."""
    try:
        limit, every = (folder / "cpu.max").read_text().split()[:2]
        return None if limit == "max" else int(limit) / int(every)
    except (OSError, ValueError):
        pass
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
        return quota / period if quota > 0 and period > 0 else None
    except (OSError, ValueError):
        return None


def cpu_quota(root: Path = CGROUP_ROOT, membership: Path = Path("/proc/self/cgroup")) -> float | None:
    """This process's cgroup CPU quota in cores, or None where there is none: the smallest quota
    on the way from its cgroup (listed in `membership`) up to the mount at `root`, in the v2
    hierarchy (at `root`, or `root`/unified beside v1) and in v1's cpu controller."""
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        lines = []
    folders = []
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        relative = path.strip().lstrip("/")
        if controllers == "":  # v2
            folders += [root / relative, root / "unified" / relative]
        elif "cpu" in controllers.split(","):
            folders.append(root / controllers / relative)
    quotas = []
    for folder in folders:
        while True:
            if (quota := _quota_in(folder)) is not None:
                quotas.append(quota)
            if folder == root or folder.parent == folder or root not in folder.parents:
                break
            folder = folder.parent
    if not lines and (quota := _quota_in(root)) is not None:
        quotas.append(quota)
    return min(quotas) if quotas else None


def affinity_cores() -> int:
    """The cores in this process's affinity mask (not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def machine_threads() -> int:
    """The cores this process may use: its affinity mask, capped by a cgroup CPU quota (whole
    cores, at least one)."""
    cores = affinity_cores()
    quota = cpu_quota()
    return max(1, min(cores, math.floor(quota))) if quota is not None else cores


def resolve_threads(threads: int | None) -> int:
    """None or 0: every core this process may use; otherwise `threads` (>= 1)."""
    if not threads:
        return machine_threads()
    if threads < 0:
        raise ValueError(f"threads must be >= 1 (or 0 for all cores), got {threads}")
    return int(threads)


def spinning_advice(environ: Mapping[str, str]) -> str:
    """What makes torch's OpenMP threads spin here, and how to stop it (for the warnings)."""
    spins = openmp_spin_count(environ)
    why = (
        f"OMP_WAIT_POLICY={environ['OMP_WAIT_POLICY']}"
        if "OMP_WAIT_POLICY" in environ and "GOMP_SPINCOUNT" not in environ
        else f"GOMP_SPINCOUNT={environ['GOMP_SPINCOUNT']}"
        if "GOMP_SPINCOUNT" in environ
        else "libgomp's default: the machine was idle when popucom loaded torch, or torch was loaded first"
    )
    count = "without end" if math.isinf(spins) else f"{spins:g} times"
    return (
        f"torch's OpenMP threads spin {count} at every operator's barrier ({why}); "
        "set OMP_WAIT_POLICY=PASSIVE before starting Python for a long run on a shared machine"
    )


def contention_warning(
    threads: int, cores: int, quota: float | None, others: float | None, environ: Mapping[str, str]
) -> str | None:
    """Why `threads` torch threads would wait on each other here, or None: a CPU quota below
    the budget, or OpenMP threads that spin (by the wait variables in `environ`) while other
    processes keep `others` cores busy, leaving fewer free cores than threads."""
    if threads <= 1:
        return None
    if quota is not None and threads > quota:
        return (
            f"{threads} network threads on a CPU quota of {quota:g} cores (cgroup cpu.max): the threads "
            f"beyond it only take turns; use --threads {max(1, math.floor(quota))}"
        )
    if openmp_spin_count(environ) > 0 and others is not None and cores - others < threads - BUSY_CORES:
        return (
            f"other processes keep {others:.1f} of {cores} cores busy, and {spinning_advice(environ)}: "
            f"{threads} torch threads can run several times slower than 1 (or use --threads 1)"
        )
    return None


def warn_once(message: str | None) -> str | None:
    """Logs `message` once per process; returns it."""
    if message is not None and message not in _warned:
        _warned.add(message)
        logger.warning(message)
    return message


def warn_if_contended(threads: int) -> str | None:
    """Logs contention_warning for this machine now, once per process and message; returns it."""
    spinning = threads > 1 and openmp_spin_count(os.environ) > 0
    others = others_busy_now() if spinning else None  # sampled only where something else runs
    return warn_once(contention_warning(threads, affinity_cores(), cpu_quota(), others, os.environ))


def adaptive_threads(threads: int, cores: int, others: float | None) -> int:
    """Of a budget of `threads`, those worth running while other processes keep `others` cores
    of `cores` busy: the free cores, rounded (a process busy less than BUSY_CORES leaves its
    core free), at least 1."""
    if others is None:
        return threads
    return max(1, min(threads, math.floor(cores - others + BUSY_CORES)))


class AdaptiveBudget:
    """A thread budget that yields to other processes: calling it gives the threads to run now
    (adaptive_threads of the load since the previous measurement, re-measured at most every
    `interval` seconds). Thread-safe. With POPUCOM_ADAPTIVE_THREADS=off (or adapt=False) it
    is the budget."""

    def __init__(self, threads: int, adapt: bool | None = None, interval: float = ADAPT_INTERVAL_S) -> None:
        choice = os.environ.get(ADAPT_ENV, "on")
        if choice not in ADAPT_CHOICES:
            raise ValueError(f"{ADAPT_ENV}: unknown choice '{choice}' (choose {', '.join(ADAPT_CHOICES)})")
        self.threads = threads
        self.adapt = (choice == "on") if adapt is None else adapt
        self.adapt = self.adapt and threads > 1
        self.interval = interval
        self.cores = affinity_cores()
        self.current = threads
        self._load = OtherLoad() if self.adapt else None
        self._checked = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self) -> int:
        if self._load is None or time.monotonic() - self._checked < self.interval:
            return self.current
        with self._lock:
            if time.monotonic() - self._checked >= self.interval:
                others = self._load.read()
                self._checked = time.monotonic()
                self.current = adaptive_threads(self.threads, self.cores, others)
                if self.current < self.threads and openmp_spin_count(os.environ) > 0:
                    warn_once(
                        f"other processes keep {others:.1f} of {self.cores} cores busy: the torch evaluator runs on "
                        f"{self.current} of its {self.threads} threads while they do, but {spinning_advice(os.environ)}"
                    )
        return self.current


def set_torch_threads(threads: int | None) -> int:
    """Sets torch's intra-op threads (and inter-op to 1 while that is still allowed:
    torch refuses once parallel work has started). Returns the budget applied, after warning
    where it would contend (warn_if_contended)."""
    import torch

    threads = resolve_threads(threads)
    warn_if_contended(threads)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    if torch.get_num_interop_threads() != 1:
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already started; the network never runs operators side by side anyway
            pass
    return threads


def onnx_session_options(threads: int | None):
    """onnxruntime.SessionOptions with the budget: intra-op `threads`, inter-op 1, full graph optimisation."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = resolve_threads(threads)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    # Idle intra-op threads sleep instead of spinning: spinning ones take the cores that a
    # second ONNX Runtime session, torch or the C++ search needs next (two arena players share a process).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options
