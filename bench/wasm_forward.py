"""The native forward compiled to WebAssembly, timed in Node.js (V8, Chromium's engine): ONE JSON line.

    python bench/wasm_forward.py [--preset small | --model CKPT.pt] [--batches 1 16] [--seconds 3]

Builds csrc/wasm/forward_bench.cpp with the forward's sources (csrc/nn) twice with emscripten,
with SIMD128 (`-msimd128`: the portable kernels' 4-lane vectors) and without (scalar wasm),
runs each on one thread with random weights of the network's shape (a forward's cost does not
depend on the values), and reports evaluations/s per batch, each the median of five timings.
Beside them, the same forward in this process (popucom._core.NativeNet, float32, one thread, at
this CPU's level or the one $POPUCOM_CPU_ISA caps it to), so the line holds the ratio of wasm to
native on this machine. Compare with bench/web.py's onnxruntime-web figures in Chromium
(docs/benchmarks.md, "The browser"): this is the candidate for the page's network.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from popucom import _core
from popucom.benchmarks import machine_info
from popucom.nn import PopucomNet, preset
from popucom.nn.checkpoint import load_network
from popucom.nn.model import LEGAL_PLANE
from popucom.nn.native import NativeForward
from popucom.web.toolchain import find_toolchain
from popucom.web.wasm_forward import VARIANTS, build_forward_bench, node_command

ROOT = Path(__file__).resolve().parents[1]


def shape_arguments(net: PopucomNet) -> list[str]:
    """forward_bench's shape arguments for the network."""
    c = net.config
    mlp_hidden = net.sublayers[1].inner.up.out_features
    return [str(v) for v in (c.input_planes, c.d_model, c.layers, c.heads, mlp_hidden, c.head_hidden, LEGAL_PLANE)]


def run_wasm(js: Path, net: PopucomNet, batches: list[int], seconds: float) -> dict[str, int]:
    tools = find_toolchain()
    command = node_command(tools, js, [*shape_arguments(net), str(seconds), *map(str, batches)])
    done = subprocess.run(command, env=tools.env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"node {js.name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])["evals_per_s"]


def run_native(net: PopucomNet, batches: list[int], seconds: float) -> dict[str, int]:
    forward = NativeForward(net, threads=1, bf16=False)
    rng = np.random.default_rng(3)
    rates = {}
    for batch in batches:
        x = (rng.random((batch, net.config.input_planes, _core.NUM_SQUARES)) < 0.3).astype(np.float32)
        forward(x)
        timings = []
        for _ in range(5):
            start, calls = time.perf_counter(), 0
            while time.perf_counter() - start < seconds / 5:
                forward(x)
                calls += 1
            timings.append(calls * batch / (time.perf_counter() - start))
        rates[str(batch)] = round(statistics.median(timings))
    return rates


def ratios(top: dict[str, int], bottom: dict[str, int]) -> dict[str, float]:
    return {batch: round(top[batch] / bottom[batch], 2) for batch in bottom}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small")
    parser.add_argument("--model", type=Path, help="a checkpoint (.pt) whose network's shape to time")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--seconds", type=float, default=3.0, help="per batch size and path")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "wasm-forward")
    args = parser.parse_args()
    if any(b < 1 or b > 4096 for b in args.batches) or not 0.05 <= args.seconds <= 600:
        parser.error("batches must be 1..4096 and --seconds 0.05..600")
    net = (load_network(args.model) if args.model else PopucomNet(preset(args.preset))).eval()
    scripts = {variant: build_forward_bench(ROOT / "csrc", variant, args.out, find_toolchain()) for variant in VARIANTS}
    rates = {"native": run_native(net, args.batches, args.seconds)}
    for variant, js in scripts.items():
        rates[f"wasm_{variant}"] = run_wasm(js, net, args.batches, args.seconds)
    line = {
        "benchmark": "wasm_forward",
        "model": str(args.model) if args.model else args.preset,
        "evals_per_s": rates,
        "wasm_simd128_over_native": {
            b: round(rates["wasm_simd128"][b] / rates["native"][b], 2) for b in rates["native"]
        },
        "simd128_over_scalar": {
            b: round(rates["wasm_simd128"][b] / rates["wasm_scalar"][b], 2) for b in rates["native"]
        },
        "native_cpu_level": _core.cpu_level(),
        "node": subprocess.run([find_toolchain().node, "--version"], capture_output=True, text=True).stdout.strip(),
        "machine": machine_info(),
    }
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    sys.exit(main())
