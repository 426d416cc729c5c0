"""The web app's speed in headless Chromium (popucom.web.headless), from a cold browser profile:
the time from navigation to a board that takes clicks; the bytes the first visit transfers (what
the server sends, headers included, brotli where the browser accepts it: by the time the board
takes clicks, and in all once the service worker holds its offline copy of the site); network
evaluations per second in the engine worker at batch 1, 8 and 16; and the AI's move time from the
empty board at 100, 200 and 800 visits, a fresh tree each time (the strongest level's model and
the engine's default search). The network figures are taken for the page's network file on the
core's own forward and, in the same run, for the same network as ONNX on onnxruntime-web
(`onnxruntime_web`), with the ratios of the two (`speedup`: onnxruntime-web's time over the
page's). One JSON line, with the CPU, its AVX2/AVX-512, whether the page was cross-origin isolated
and the threads each runtime used.

Run by bench/web.py; builds the site first (`popucom web build`, which reuses what is up to date).
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from pathlib import PurePosixPath
from typing import Any

from ..benchmarks import machine_info
from . import headless
from .build import build

BATCHES = (1, 8, 16)
VISITS = (100, 200, 800)


def vector_extensions() -> dict:
    """Whether the CPU has AVX2 and AVX-512 (/proc/cpuinfo's flags; both false where it is absent)."""
    flags: set[str] = set()
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as f:
            flags = next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), set())
    return {"avx2": "avx2" in flags, "avx512": "avx512f" in flags}


def interactive_ms(driver: Any, url: str) -> float:
    """Milliseconds from the start of navigation to the board taking clicks: the page's
    'popucom-interactive' mark where it sets one, else window.popucom.ready's resolution."""
    ready_ms = headless.open_page(driver, url)
    mark = driver.execute_script(
        "const m = performance.getEntriesByName('popucom-interactive'); return m.length ? m[0].startTime : null;"
    )
    return round(mark if mark is not None else ready_ms, 1)


def first_visit_bytes(site: headless.Site, quiet_s: float = 2.0, timeout: float = 120) -> int:
    """The bytes the server has sent once it has been quiet for `quiet_s`: the first visit, the
    service worker's offline copy included."""
    deadline = time.monotonic() + timeout
    sent, since = site.bytes_sent, time.monotonic()
    while time.monotonic() - since < quiet_s and time.monotonic() < deadline:
        time.sleep(0.1)
        if site.bytes_sent != sent:
            sent, since = site.bytes_sent, time.monotonic()
    return sent


# Posts one message to the engine worker and waits for the reply with its id.
_WORKER_CALL = """
const worker = window.popucom.app.engine.worker;
const message = Object.assign({id: 'bench-' + Math.random()}, args[0]);
return await new Promise((resolve, reject) => {
  const listen = (event) => {
    if (event.data?.id !== message.id || event.data.type === 'progress') return;
    worker.removeEventListener('message', listen);
    if (event.data.type === 'error') reject(new Error(event.data.message)); else resolve(event.data);
  };
  worker.addEventListener('message', listen);
  worker.postMessage(message);
});
"""


def evaluations_per_s(driver: Any, model: str, batch: int, repeats: int) -> tuple[float, dict]:
    """Positions a second through the worker's network at `batch` (median of `repeats` calls after
    a warm-up), and the runtime that ran it: {backend, threads}."""
    reply = headless.page_call(
        driver, _WORKER_CALL, {"type": "bench-net", "model": model, "batch": batch, "repeats": repeats}, timeout=300
    )
    return batch / statistics.median(reply["seconds"]), {"backend": reply["backend"], "threads": reply["threads"]}


def move_s(driver: Any, model: str, visits: int, repeats: int) -> float:
    """Median seconds of an AI move at `visits` from the empty board, each from a fresh tree."""
    times = headless.page_call(
        driver,
        """const [model, visits, repeats] = args;
        const engine = window.popucom.app.engine, times = [];
        for (let seed = 0; seed < repeats; seed++) {
          engine.newGame();  // no tree kept from the last repeat
          const start = performance.now();
          await engine.search({moves: [], komi: 0, model, params: {visits}, seed, temperature: 0,
                               temperaturePlies: 0, reportEveryMs: 1000, analysis: false});
          times.push((performance.now() - start) / 1000);
        }
        return times;""",
        model,
        visits,
        repeats,
        timeout=600,
    )
    return statistics.median(times)


def network_figures(driver: Any, model: str, repeats: int, batches: tuple[int, ...], visits: tuple[int, ...]) -> dict:
    """One network's figures: its runtime, evaluations/s at each batch and move seconds at each
    visit count."""
    figures: dict = {"model": model}
    evals = {}
    for batch in batches:
        evals[str(batch)], runtime = evaluations_per_s(driver, model, batch, max(repeats, 5))
        figures.update(runtime)
    figures["evals_per_s"] = {k: round(v, 1) for k, v in evals.items()}
    figures["move_s"] = {str(n): round(move_s(driver, model, n, repeats), 3) for n in visits}
    return figures


def run(repeats: int, batches: tuple[int, ...] = BATCHES, visits: tuple[int, ...] = VISITS) -> dict:
    """The figures of the module docstring with the machine's, for the JSON line: network
    evaluations/s at each of `batches` and move seconds at each of `visits`, medians of `repeats`
    (at least 5 for the network's)."""
    with contextlib.redirect_stdout(sys.stderr):  # the build's progress: stdout holds the one line
        dist = build()
    result: dict = {"benchmark": "web", **machine_info(), **vector_extensions()}
    with headless.serving(dist) as site, headless.chromium() as driver:
        result["chromium"] = driver.capabilities.get("browserVersion")
        result["interactive_ms"] = interactive_ms(driver, site.url)
        result["bytes_at_interactive"] = site.bytes_sent
        headless.page_call(driver, "await navigator.serviceWorker?.ready;", timeout=60)
        result["bytes_transferred"] = first_visit_bytes(site)
        result["cross_origin_isolated"] = driver.execute_script("return self.crossOriginIsolated;")
        model = driver.execute_script("return window.popucom.app.level.model;")
        result.update(network_figures(driver, model, repeats, batches, visits))
        onnx = network_figures(driver, str(PurePosixPath(model).with_suffix(".onnx")), repeats, batches, visits)
        result["onnxruntime_web"] = onnx
    result["speedup"] = {
        "evals_per_s": {b: round(v / onnx["evals_per_s"][b], 2) for b, v in result["evals_per_s"].items()},
        "move_s": {n: round(onnx["move_s"][n] / v, 2) for n, v in result["move_s"].items()},
    }
    return result
