"""Per-call latency of the network on 1 and 2 threads, on an idle machine and beside competing
busy processes, under each OpenMP wait policy: ONE JSON line.

    python bench/oversubscription.py [--model weights/popucom-small-v11.pt] [--repeats 3] [--seconds 0.5]
        [--batches 1 16 192] [--paths torch auto] [--policies default before passive] [--train-steps 3]
        [--competitors 1] [--quick]

Loads, each measured in a fresh Python process:
  idle     nothing started beside it (the machine is only as idle as its other work: see
           background_cores)
  loaded   `--competitors` processes running `python -c "while True: pass"` (one busy core each,
           at the same priority) started before the measuring process, as when popucom starts on
           a machine that is already busy
  later    the same competitors started by the measuring process once it has loaded torch and
           its evaluators: load that arrives after the start
Paths:
  torch    TorchEvaluator with float32 products: what a CPU without AVX-512 ran before OpenVINO (the
           OpenMP team of torch's libgomp below 64 positions, worker threads of one torch thread
           each from 64 on; popucom.infer.torch_backend), and what training runs on
  auto     load_evaluator's choice for the checkpoint on this CPU (popucom.infer.choice: the native
           forward for a network it serves, else OpenVINO on the .onnx beside it)
  native, openvino, onnx  that backend of load_evaluator (the exported ones on the .onnx beside)
Policies (the environment of the measuring processes; libgomp reads it once, when torch loads):
  default  the environment as given: popucom's own choice (popucom.cpu_load, popucom.infer.threads:
           sleeping OpenMP threads where the machine is busy as torch loads, the torch evaluator's
           threads adapting to the load)
  before   GOMP_SPINCOUNT=300000 (libgomp's default) and POPUCOM_ADAPTIVE_THREADS=off: what ran
           before popucom chose either
  passive  OMP_WAIT_POLICY=PASSIVE and POPUCOM_ADAPTIVE_THREADS=off: threads that always sleep
  NAME=VALUE[,NAME=VALUE...]  any other environment, e.g. GOMP_SPINCOUNT=10000
Each repeat runs every (policy, load) once, the policies and loads interleaved round by round
(their order reversed every other round) so that load from other work on the machine hits all
alike; figures are medians over repeats of the median call in each timing block. Also reported:
the CPU cores the measuring process kept busy during a block (cpu_cores), the cores other
processes used during each measurement (background_cores: the competitors not counted), the wait
policy libgomp got (openmp_spin_count), the threads the adaptive torch evaluator ran at last
(torch_threads_used), and the eager training step (batch 128, the model's architecture) on 1
and 2 torch threads, which is how training takes its budget, and on an AdaptiveBudget of 2
applied before every step (2_adaptive), which is what a training loop could do.

To take the paths of a CPU without AVX-512 on one that has it, run under POPUCOM_CPU_ISA=avx2
ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 (popucom's kernels
and choice, torch's, oneDNN's and MKL's kernels). --quick (a handful of seconds, for the tests)
times batch 1 on the torch path, idle and `later` only, in this process, with one short block
per figure and one training step at batch 16.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from popucom.benchmarks import machine_info
from popucom.cpu_load import WAIT_VARIABLES, machine_busy_seconds, process_seconds
from popucom.data.positions import random_features
from popucom.infer import load_evaluator
from popucom.infer.factory import EXPORTED_BACKENDS
from popucom.infer.threads import ADAPT_ENV, AdaptiveBudget, cpu_quota, openmp_spin_count
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn.checkpoint import load_network
from popucom.train import TrainConfig, Trainer
from popucom.train.window import Batch

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "weights" / "popucom-small-v11.pt"
THREADS = (1, 2)
LOADS = ("idle", "loaded", "later")
QUICK_LOADS = ("idle", "later")
POLICIES = {
    "default": {},
    "before": {"GOMP_SPINCOUNT": "300000", ADAPT_ENV: "off"},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE", ADAPT_ENV: "off"},
}
KNOBS = (*WAIT_VARIABLES, ADAPT_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS", "ATEN_CPU_CAPABILITY",
         "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS", "POPUCOM_CPU_ISA", "POPUCOM_CPU_MATMUL")  # fmt: skip
BUSY_LOOP = "while True: pass"
PATHS = ("torch", "auto", "native", "openvino", "onnx")
TRAIN_BATCH = 128


@contextmanager
def competitors(count: int):
    """`count` busy-loop processes beside the timings; yields their pids."""
    busy = []
    try:
        for _ in range(count):
            busy.append(subprocess.Popen([sys.executable, "-c", BUSY_LOOP]))
        if busy:
            time.sleep(0.2)  # running before the first timing
        yield [b.pid for b in busy]
    finally:
        for b in busy:
            b.kill()
            b.wait()


def time_block(run, x, seconds: float) -> dict:
    """Median call latency over a block of at least `seconds` (and 3 calls), and the cores this
    process kept busy meanwhile."""
    run(x)  # warm-up: the previous block's threads settle, this one's buffers exist
    latencies = []
    wall0, cpu0 = time.perf_counter(), process_seconds()
    while (time.perf_counter() - wall0) < seconds or len(latencies) < 3:
        start = time.perf_counter()
        run(x)
        latencies.append(time.perf_counter() - start)
    wall = time.perf_counter() - wall0
    return {"ms": 1000 * statistics.median(latencies), "cpu_cores": (process_seconds() - cpu0) / wall}


def evaluators(model: Path, paths: list[str]) -> dict:
    """(path, threads) -> the evaluator."""
    out = {}
    for threads in THREADS:
        for path in paths:
            if path == "torch":
                out[path, threads] = TorchEvaluator(load_network(model), threads=threads, cpu_matmul="fp32")
            else:
                file = model.with_suffix(".onnx") if path in EXPORTED_BACKENDS else model
                out[path, threads] = load_evaluator(file, path, threads=threads)
    return out


def measure(args, load: str, competitor_pids: list[int]) -> dict:
    """Every figure once under `load`, in this process: latency {path: {batch: {threads: {ms,
    cpu_cores}}}}, training steps, the background load and what the wait policy and adaptive
    budget were. `later` starts the competitors here, after the setup."""
    import torch

    runs = evaluators(args.model, args.paths)
    inputs = {b: random_features(b, seed=b, komi_range=5) for b in args.batches}
    trainer = batch = None
    if args.train_steps:
        trainer = Trainer(load_network(args.model).config, TrainConfig(batch_size=args.train_batch))
        batch = Batch.random(args.train_batch, seed=1)
    result = {
        "latency": {},
        "train_step_ms": {},
        "describe": {f"{path}/{threads}": e.describe() for (path, threads), e in runs.items()},
        "openmp_spin_count": openmp_spin_count(),
        "environment": {k: os.environ.get(k) for k in KNOBS},
    }
    with competitors(args.competitors if load == "later" else 0) as started:
        pids = competitor_pids + started
        wall0, machine0, own0 = time.perf_counter(), machine_busy_seconds(), process_seconds()
        busy0 = sum(map(process_seconds, pids))
        for path in args.paths:
            for b in args.batches:
                for threads in THREADS:
                    evaluator = runs[path, threads]

                    def run(x, evaluator=evaluator, threads=threads):
                        torch.set_num_threads(threads)  # process-wide: each evaluator's own budget
                        return evaluator.run_all(x)

                    block = time_block(run, inputs[b], args.seconds)
                    result["latency"].setdefault(path, {}).setdefault(str(b), {})[str(threads)] = block
        if "torch" in args.paths:
            result["torch_threads_used"] = runs["torch", THREADS[-1]].budget.current
        if trainer is not None:
            adaptive = AdaptiveBudget(THREADS[-1], adapt=True)
            for name, threads in [(str(t), lambda t=t: t) for t in THREADS] + [("2_adaptive", adaptive)]:
                torch.set_num_threads(threads())
                trainer.train_step(batch)  # warm-up
                times = []
                for _ in range(args.train_steps):
                    torch.set_num_threads(threads())
                    start = time.perf_counter()
                    trainer.train_step(batch)
                    times.append(time.perf_counter() - start)
                result["train_step_ms"][name] = 1000 * statistics.median(times)
        wall = time.perf_counter() - wall0
        others = machine_busy_seconds() - machine0 - (process_seconds() - own0)
        others -= sum(map(process_seconds, pids)) - busy0
        result["background_cores"] = max(0.0, others / wall)
    return result


def policy_env(policy: str) -> dict[str, str]:
    env = dict(os.environ)
    if policy in POLICIES:
        if POLICIES[policy]:
            for name in WAIT_VARIABLES:
                env.pop(name, None)
        env.update(POLICIES[policy])
        return env
    for item in policy.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"policy '{policy}': want {', '.join(POLICIES)} or NAME=VALUE[,NAME=VALUE...]")
        env[name] = value
    return env


def child_measure(args, policy: str, load: str) -> dict:
    """measure() in a fresh process with the policy's environment; `loaded` starts the competitors first."""
    with competitors(args.competitors if load == "loaded" else 0) as pids:
        command = [sys.executable, __file__, "--child", load, "--competitor-pids", *map(str, pids)]
        command += ["--model", str(args.model), "--seconds", str(args.seconds), "--train-steps", str(args.train_steps)]
        command += ["--train-batch", str(args.train_batch), "--competitors", str(args.competitors)]
        command += ["--batches", *map(str, args.batches), "--paths", *args.paths]
        done = subprocess.run(command, env=policy_env(policy), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"policy {policy}, {load}: the measuring process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(rounds: list[dict], *keys) -> float | None:
    values = []
    for r in rounds:
        for k in keys:
            r = r.get(k) if isinstance(r, dict) else None
        if r is not None:
            values.append(r)
    return statistics.median(values) if values else None


def summary(rounds: dict[str, list[dict]], args) -> dict:
    """Medians over rounds per load, and the ratios 2 threads / 1 thread."""
    out = {key: {} for key in ("latency_ms", "ratio_2_over_1_threads", "cpu_cores", "train_step_ms")}
    out |= {"train_ratio_2_over_1_threads": {}, "background_cores": {}, "openmp_spin_count": {}}
    out["torch_threads_used"] = {}
    for load, runs in rounds.items():
        for path in args.paths:
            for b in map(str, args.batches):
                for t in map(str, THREADS):
                    ms = median_of(runs, "latency", path, b, t, "ms")
                    out["latency_ms"].setdefault(load, {}).setdefault(path, {}).setdefault(b, {})[t] = round(ms, 3)
                    cores = median_of(runs, "latency", path, b, t, "cpu_cores")
                    out["cpu_cores"].setdefault(load, {}).setdefault(path, {}).setdefault(b, {})[t] = round(cores, 2)
                row = out["latency_ms"][load][path][b]
                out["ratio_2_over_1_threads"].setdefault(load, {}).setdefault(path, {})[b] = round(
                    row["2"] / row["1"], 2
                )
        names = [*map(str, THREADS), "2_adaptive"]
        train = {t: round(m, 1) for t in names if (m := median_of(runs, "train_step_ms", t)) is not None}
        out["train_step_ms"][load] = train
        out["train_ratio_2_over_1_threads"][load] = {
            t: round(train[t] / train["1"], 2) for t in names[1:] if t in train and "1" in train
        }
        out["background_cores"][load] = round(median_of(runs, "background_cores") or 0.0, 2)
        out["openmp_spin_count"][load] = sorted({r["openmp_spin_count"] for r in runs})
        out["torch_threads_used"][load] = sorted({r["torch_threads_used"] for r in runs if "torch_threads_used" in r})
    out["describe"] = next(iter(rounds.values()))[0]["describe"]
    out["environment"] = next(iter(rounds.values()))[0]["environment"]
    return out


def cpu_flags() -> list[str]:
    wanted = ("avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile")
    try:
        with open("/proc/cpuinfo") as f:
            flags = next(line.split(":", 1)[1].split() for line in f if line.startswith("flags"))
    except (OSError, StopIteration):
        return []
    return [flag for flag in wanted if flag in flags]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--repeats", type=int, default=3, help="rounds: one process per policy and load each")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of each timing block")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 192])
    parser.add_argument(
        "--paths", nargs="+", default=["torch", "auto"], choices=PATHS, help="torch, or a backend of load_evaluator"
    )
    parser.add_argument(
        "--policies", nargs="+", default=list(POLICIES), help="default, before, passive or NAME=VALUE,..."
    )
    parser.add_argument("--loads", nargs="+", default=list(LOADS), choices=LOADS)
    parser.add_argument("--train-steps", type=int, default=3, help="timed training steps per figure (0: none)")
    parser.add_argument("--train-batch", type=int, default=TRAIN_BATCH)
    parser.add_argument("--competitors", type=int, default=1, help="busy-loop processes in the loaded phases")
    parser.add_argument("--quick", action="store_true", help="seconds: batch 1, the torch path, in this process")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: one load in this process
    parser.add_argument("--competitor-pids", type=int, nargs="*", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args, args.child, args.competitor_pids)), flush=True)
        return

    start, load_at_start = time.perf_counter(), os.getloadavg()[0]
    if args.quick:
        args.repeats, args.seconds, args.batches, args.paths = 1, 0.05, [1], ["torch"]
        args.train_steps, args.train_batch, args.policies, args.loads = 1, 16, ["current"], list(QUICK_LOADS)
        rounds = {"current": {load: [measure(args, load, [])] for load in args.loads}}
    else:
        rounds = {policy: {load: [] for load in args.loads} for policy in args.policies}
        for k in range(args.repeats):
            pairs = [(policy, load) for load in args.loads for policy in args.policies]
            for policy, load in pairs if k % 2 == 0 else pairs[::-1]:
                rounds[policy][load].append(child_measure(args, policy, load))
    import torch

    print(
        json.dumps(
            {
                "benchmark": "oversubscription",
                "model": str(args.model),
                "units": "latency_ms: median milliseconds per call; cpu_cores: the measuring process's CPU "
                "seconds per second; background_cores: other processes' busy cores, the competitors not counted",
                "batches": args.batches,
                "threads": list(THREADS),
                "loads": args.loads,
                "repeats": args.repeats,
                "seconds_per_block": args.seconds,
                "train_batch": args.train_batch if args.train_steps else None,
                "competitor": f"{Path(sys.executable).name} -c '{BUSY_LOOP}'",
                "competitors": args.competitors,
                "policies": {policy: summary(r, args) for policy, r in rounds.items()},
                "machine": {
                    **machine_info(),
                    "cpu_flags": cpu_flags(),
                    "affinity_cores": len(os.sched_getaffinity(0)),
                    "cpu_quota_cores": cpu_quota(),
                    "load_average_at_start": round(load_at_start, 2),
                    "torch": torch.__version__,
                    "env": {k: os.environ.get(k) for k in KNOBS},
                },
                "wall_s": round(time.perf_counter() - start, 1),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
