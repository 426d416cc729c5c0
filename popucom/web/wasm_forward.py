"""The native forward (csrc/nn/native_net.h) compiled to WebAssembly for timing and checking:
csrc/wasm/forward_bench.cpp with the forward's sources, with SIMD128 (`-msimd128`: the portable
kernels' 4-lane vectors) or without (scalar wasm), as a Node.js program. bench/wasm_forward.py
times it; tests/web/test_wasm_forward.py compares its outputs with a native build's.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .toolchain import Toolchain
from .wasm import NETWORK_SOURCES

SOURCES = ("wasm/forward_bench.cpp", *NETWORK_SOURCES)
FLAGS = ("-std=c++17", "-O3", "-DNDEBUG", "-fwasm-exceptions")
VARIANTS = {"simd128": ("-msimd128",), "scalar": ()}
LINK = ("-O3", "-fwasm-exceptions", "-sENVIRONMENT=node", "-sALLOW_MEMORY_GROWTH=1")


def _run(command: list[str], tools: Toolchain, what: str) -> None:
    done = subprocess.run(command, env=tools.env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}):\n{(done.stderr or done.stdout)[-3000:]}")


def build_forward_bench(csrc: Path, variant: str, out: Path, tools: Toolchain) -> Path:
    """out/VARIANT/forward_bench.js (and its .wasm), built afresh."""
    folder = out / variant
    folder.mkdir(parents=True, exist_ok=True)
    flags = [*FLAGS, *VARIANTS[variant]]

    def compile_one(source: str) -> Path:
        obj = folder / (source.replace("/", "_").removesuffix(".cpp") + ".o")
        _run([tools.emcc, *flags, "-c", str(csrc / source), "-o", str(obj)], tools, f"emcc {source}")
        return obj

    with ThreadPoolExecutor(2) as pool:
        objects = list(pool.map(compile_one, SOURCES))
    js = folder / "forward_bench.js"
    _run([tools.emcc, *LINK, *map(str, objects), "-o", str(js)], tools, "emcc link")
    return js


def node_command(tools: Toolchain, js: Path, arguments: list[str]) -> list[str]:
    """The command that runs a built forward_bench.js. Without fetch: this emscripten's loader
    would take the .wasm's path for a URL to fetch."""
    return [tools.node, "--no-experimental-fetch", str(js), *arguments]
