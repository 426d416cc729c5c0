"""The C++ core compiled to WebAssembly: the unchanged rules, features and search sources of
csrc/ plus the C API of csrc/wasm/web_api.cpp, as one ES module factory
(`createPopucomCore`) and its .wasm, for a page and its module workers.

Objects are rebuilt only when their source, a header of csrc/ or the flags changed, and the
module is linked only when an object or the exported API changed, at most two compilers at
a time. `-fwasm-exceptions` keeps the C++ catch blocks (without it an exception reaches
JavaScript as a bare number); `-msimd128` gives the network's kernels their 4-lane vectors
(every browser with wasm exceptions has SIMD128); there are no threads, the page's worker runs
the module.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .toolchain import Toolchain

# The native forward's portable kernels (4-lane vectors: SIMD128 here), for network files.
NETWORK_SOURCES = (
    "nn/native_net.cpp",
    "nn/native_net_file.cpp",
    "nn/cpu_level.cpp",
    "nn/packed_product.cpp",
    "nn/packed_product_portable.cpp",
    "nn/pope_attention.cpp",
    "nn/pope_attention_portable.cpp",
    "nn/pope_attention_dots.cpp",
    "nn/depth_mix.cpp",
)
SOURCES = (
    "game/position.cpp",
    "game/game.cpp",
    "game/notation.cpp",
    "eval/features.cpp",
    "search/params.cpp",
    "search/eval_cache.cpp",
    "search/tree.cpp",
    "search/tree_choice.cpp",
    "search/tree_gumbel.cpp",
    "search/tree_playout.cpp",
    "search/tree_stats.cpp",
    "search/multi_search.cpp",
    "search/solver.cpp",
    *NETWORK_SOURCES,
    "wasm/web_api.cpp",
)
API_SOURCE = "wasm/web_api.cpp"
MODULE_NAME = "popucom_core"  # popucom_core.js + popucom_core.wasm
FACTORY_NAME = "createPopucomCore"
COMPILE_FLAGS = ("-std=c++17", "-O3", "-DNDEBUG", "-fwasm-exceptions", "-msimd128", "-Wall", "-Wextra")
LINK_FLAGS = (
    "-O3",
    "-fwasm-exceptions",
    "-sMODULARIZE=1",
    "-sEXPORT_ES6=1",
    f"-sEXPORT_NAME={FACTORY_NAME}",
    "-sENVIRONMENT=web,worker",
    "-sALLOW_MEMORY_GROWTH=1",
    "-sMAXIMUM_MEMORY=2GB",
    "-sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8",
)
JOBS = 2

Progress = Callable[[str], None]


def exported_functions(api_source: Path) -> list[str]:
    """The pc_ functions web_api.cpp defines (its extern "C" block), as emcc names them."""
    text = api_source.read_text()
    block = text[text.index('extern "C" {') :]
    return [f"_{name}" for name in re.findall(r"^(?:int|const char\*|void|double) (pc_\w+)\(", block, re.MULTILINE)]


def _newest_header(csrc: Path) -> float:
    return max(path.stat().st_mtime for path in csrc.rglob("*.h"))


def _stamp(values: list[str]) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()


def _run(command: list[str], tools: Toolchain, what: str) -> None:
    done = subprocess.run(command, env=tools.env, capture_output=True, text=True)
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip()
        raise RuntimeError(f"{what} failed (exit {done.returncode}):\n{output[-4000:]}")


def build_core(csrc: Path, work: Path, out: Path, tools: Toolchain, progress: Progress) -> list[Path]:
    """Compiles and links the core into out/popucom_core.{js,wasm} (objects kept in `work`);
    returns the two files."""
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    flags_stamp = work / "flags.sha256"
    flags = _stamp([tools.emcc, *COMPILE_FLAGS])
    stale_flags = not flags_stamp.is_file() or flags_stamp.read_text() != flags
    headers = _newest_header(csrc)
    jobs = []
    objects = []
    for source in SOURCES:
        src = csrc / source
        obj = work / (source.replace("/", "_").removesuffix(".cpp") + ".o")
        objects.append(obj)
        if stale_flags or not obj.is_file() or obj.stat().st_mtime < max(src.stat().st_mtime, headers):
            jobs.append((src, obj))

    def compile_one(job: tuple[Path, Path]) -> None:
        src, obj = job
        progress(f"compiling csrc/{src.relative_to(csrc)}")
        _run([tools.emcc, *COMPILE_FLAGS, "-c", str(src), "-o", str(obj)], tools, f"emcc {src.name}")

    with ThreadPoolExecutor(JOBS) as pool:
        list(pool.map(compile_one, jobs))  # list(): the first failure is raised here
    flags_stamp.write_text(flags)

    js, wasm = out / f"{MODULE_NAME}.js", out / f"{MODULE_NAME}.wasm"
    exports = exported_functions(csrc / API_SOURCE)
    link_stamp = work / "link.sha256"
    link = _stamp([*LINK_FLAGS, *exports])
    newest_object = max(obj.stat().st_mtime for obj in objects)
    if (
        jobs
        or not js.is_file()
        or not wasm.is_file()
        or min(js.stat().st_mtime, wasm.stat().st_mtime) < newest_object
        or not link_stamp.is_file()
        or link_stamp.read_text() != link
    ):
        progress(f"linking wasm/{js.name} ({len(exports)} C functions)")
        exported = ",".join([*exports, "_malloc", "_free"])
        # Linked beside the objects and moved into place: a server never sends half a module.
        linked = work / js.name
        command = [tools.emcc, *LINK_FLAGS, f"-sEXPORTED_FUNCTIONS={exported}", *map(str, objects), "-o", str(linked)]
        _run(command, tools, "emcc link")
        os.replace(linked.with_suffix(".wasm"), wasm)
        os.replace(linked, js)
        link_stamp.write_text(link)
    else:
        progress("wasm core up to date")
    return [js, wasm]
