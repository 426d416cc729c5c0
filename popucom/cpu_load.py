"""Other processes' load on this machine's cores, and the OpenMP wait policy chosen from it
before torch loads.

`popucom/__init__.py` calls `default_openmp_wait` first, before torch can load: libgomp (torch's
OpenMP runtime) reads its wait policy once, when it loads. Its default spins at every barrier,
which is fastest on an idle machine and collapses beside a busy process (popucom.infer.threads
has the figures), so where no policy was set and another process keeps a core busy as popucom
loads, idle OpenMP threads are made to sleep (OMP_WAIT_POLICY=PASSIVE); on an idle machine the
default stays and the torch evaluator adapts its threads at run time instead.

Load is read from /proc/stat (Linux): all cores' busy time less this process's own, so that
this process's threads, spinning or working, never count as other load. Elsewhere every figure
is None and nothing is chosen. This module imports neither torch nor the compiled core.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, MutableMapping

WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
BUSY_CORES = 0.5  # other processes keeping this much of a core busy make the machine busy
IMPORT_WINDOW_S = 0.05  # how long `import popucom` samples the load, when something else runs


def machine_busy_seconds() -> float | None:
    """CPU seconds all cores have spent busy since boot (everything but idle and iowait), or None."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def process_seconds(pid: int | None = None) -> float:
    """CPU seconds (user + system, all threads) of this process (pid None) or another one (0.0
    where it cannot be read)."""
    if pid is None:
        t = os.times()
        return t.user + t.system
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def runnable_tasks() -> int | None:
    """Threads running or ready to run on the machine right now, the caller's included (procs_running)."""
    try:
        with open("/proc/stat") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("procs_running"))
    except (OSError, ValueError, StopIteration):
        return None


class OtherLoad:
    """The cores other processes kept busy since the previous reading (the first one: since
    this object was made). Not thread-safe: one reader at a time."""

    def __init__(self) -> None:
        self.mark = self._now()

    @staticmethod
    def _now() -> tuple[float, float | None, float]:
        return time.monotonic(), machine_busy_seconds(), process_seconds()

    def read(self) -> float | None:
        now = self._now()
        (wall0, busy0, own0), (wall1, busy1, own1) = self.mark, now
        self.mark = now
        if busy0 is None or busy1 is None or wall1 <= wall0:
            return None
        return max(0.0, (busy1 - busy0 - (own1 - own0)) / (wall1 - wall0))


def others_busy_now(window: float = IMPORT_WINDOW_S) -> float | None:
    """The cores other processes keep busy now: 0.0 at once where nothing else is running
    (one runnable task: the caller), else sampled over `window` seconds; None without /proc."""
    running = runnable_tasks()
    if running is None:
        return None
    if running <= 1:
        return 0.0
    load = OtherLoad()
    time.sleep(window)
    return load.read()


def default_openmp_wait(
    environ: MutableMapping[str, str] | None = None,
    modules: Mapping[str, object] | None = None,
    others: float | None = None,
) -> str | None:
    """Sets OMP_WAIT_POLICY=PASSIVE in `environ` (default os.environ) where the user set no wait
    variable, torch is not loaded yet (`modules`, default sys.modules: libgomp would not read it)
    and other processes keep at least BUSY_CORES busy (`others`, default others_busy_now()).
    Returns the value set, or None."""
    environ = os.environ if environ is None else environ
    modules = sys.modules if modules is None else modules
    if "torch" in modules or any(name in environ for name in WAIT_VARIABLES):
        return None
    if others is None:
        others = others_busy_now()
    if others is None or others < BUSY_CORES:
        return None
    environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return "PASSIVE"
