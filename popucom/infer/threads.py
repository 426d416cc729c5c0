"""CPU thread budgets for the networks.

Two processes that each use every core collapse (issue 10: a second 2-thread torch evaluator
beside a 2-thread self-play ran at 7 evaluations/s instead of 578/s on one thread), so every
place that runs a network is given an explicit budget and the budgets add up to the machine.

`set_torch_threads` is process-wide (torch has one intra-op pool per process); ONNX Runtime
takes its budget per session (`onnx_session_options`). Both use one thread between operators
(inter-op): the network is a chain, there is nothing to run beside it.
"""

from __future__ import annotations

import os


def machine_threads() -> int:
    """The cores this process may use (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_threads(threads: int | None) -> int:
    """None or 0: every core this process may use; otherwise `threads` (>= 1)."""
    if not threads:
        return machine_threads()
    if threads < 0:
        raise ValueError(f"threads must be >= 1 (or 0 for all cores), got {threads}")
    return int(threads)


def set_torch_threads(threads: int | None) -> int:
    """Sets torch's intra-op threads (and inter-op to 1 while that is still allowed:
    torch refuses once parallel work has started). Returns the budget applied."""
    import torch

    threads = resolve_threads(threads)
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
    # second session, torch or the C++ search needs next (two arena players share a process).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options
