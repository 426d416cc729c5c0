"""How long `popucom engine` takes to be ready for its first command, by the kind of model file
it plays: the network file (.pcnet, the native forward read without torch), the training
checkpoint (.pt: torch loads it, native runs it) and the ONNX model (.onnx: OpenVINO or ONNX
Runtime). Each start is a fresh process timed from its launch to its reply to `name`; the
kinds take turns, so machine noise falls on all alike. One JSON line: the median seconds per
kind and each kind's median over the network file's.

Usage: python bench/engine_start.py [--model weights/popucom-small-v12.pt] [--repeats 5]
(the network file is written from the checkpoint into a temporary folder first).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def start_seconds(model: Path) -> float:
    """Seconds from launching `popucom engine --player MODEL` to its answer to `name`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "popucom.cli", "engine", "--player", str(model)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("name\n")
    process.stdin.flush()
    reply = process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.communicate("quit\n", timeout=60)
    if not reply.startswith("="):
        raise RuntimeError(f"the engine on {model} answered {reply!r} (exit {process.returncode})")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=Path("weights/popucom-small-v12.pt"), help="a checkpoint")
    parser.add_argument("--repeats", type=int, default=5, help="starts per kind (the median is reported)")
    args = parser.parse_args()
    from popucom.benchmarks import machine_info
    from popucom.nn.checkpoint import load_network
    from popucom.nn.native_file import write_network_file

    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / args.model.with_suffix(".pcnet").name
        network_file = write_network_file(load_network(args.model), target)
        models = {"network_file": network_file, "checkpoint": args.model, "onnx": args.model.with_suffix(".onnx")}
        models = {kind: path for kind, path in models.items() if path.is_file()}
        times: dict[str, list[float]] = {kind: [] for kind in models}
        for _ in range(args.repeats):
            for kind, path in models.items():
                times[kind].append(start_seconds(path))
    medians = {kind: round(statistics.median(t), 3) for kind, t in times.items()}
    print(
        json.dumps(
            {
                "benchmark": "engine_start",
                "machine": machine_info(),
                "model": str(args.model),
                "repeats": args.repeats,
                "seconds": medians,
                "over_network_file": {kind: round(m / medians["network_file"], 2) for kind, m in medians.items()},
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
