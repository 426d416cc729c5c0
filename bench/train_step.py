"""Training steps per second, eager against torch.compile (TrainConfig.compile), and compiled
with bf16 autocast (TrainConfig.cpu_bf16) on a CPU with bf16 arithmetic: ONE JSON line.

    python bench/train_step.py [--preset small] [--batch 128] [--threads 2] [--repeats 5] [--device cpu]

Both trainers start from the same weights and take the same batches (random positions with
random targets: a step's cost does not depend on what it learns), interleaved step by step so
that load from other processes hits both alike; the median step time of each is reported, with
the compiled trainer's first step (the compile, warm or cold in torch's on-disk cache) apart.
Steps that log their measurements run eagerly in both (Trainer.train_step), so they are not
timed here.
"""

import popucom  # noqa: F401  first: it sets OpenMP's wait policy before torch loads (popucom/cpu_load.py)

# isort: split

import argparse
import json
import statistics
import time
from dataclasses import replace

import torch

from popucom.benchmarks import machine_info
from popucom.infer.precision import cpu_has_bf16
from popucom.nn import preset
from popucom.train import TrainConfig, Trainer
from popucom.train.window import Batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5, help="timed steps per trainer")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    config = TrainConfig(batch_size=args.batch)
    trainers = {
        "eager": Trainer(preset(args.preset), config, device=args.device),
        "compiled": Trainer(preset(args.preset), replace(config, compile=True), device=args.device),
    }
    if args.device == "cpu" and cpu_has_bf16():
        trainers["compiled_bf16"] = Trainer(preset(args.preset), replace(config, compile=True, cpu_bf16=True))
    for name in trainers:
        trainers[name].model.load_state_dict(trainers["eager"].model.state_dict())
    batches = [Batch.random(args.batch, seed) for seed in range(args.repeats + 2)]

    first_steps = {}
    for name, trainer in trainers.items():
        start = time.perf_counter()
        trainer.train_step(batches[0])
        first_steps[name] = round(time.perf_counter() - start, 1)
    times = {name: [] for name in trainers}
    for batch in batches[1:]:
        for name, trainer in trainers.items():
            if args.device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            trainer.train_step(batch)
            if args.device == "cuda":
                torch.cuda.synchronize()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t[1:]) for name, t in times.items()}  # the first is a warm-up
    fell_back = trainers["compiled"].train_forward is trainers["compiled"].model
    print(
        json.dumps(
            {
                "benchmark": "train_step",
                "preset": args.preset,
                "batch": args.batch,
                "threads": args.threads,
                "device": args.device,
                "repeats": args.repeats,
                "step_ms": {name: round(1000 * m, 1) for name, m in median.items()},
                "steps_per_s": {name: round(1 / m, 2) for name, m in median.items()},
                "compiled_speedup": round(median["eager"] / median["compiled"], 2),
                "bf16_speedup_over_compiled": (
                    round(median["compiled"] / median["compiled_bf16"], 2) if "compiled_bf16" in median else None
                ),
                "first_step_s": first_steps,
                "compile_fell_back_to_eager": fell_back,
                "machine": machine_info(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
