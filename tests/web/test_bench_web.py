"""The web benchmark (popucom/web/benchmark.py, run by bench/web.py) runs end to end at its
smallest and gives every figure of its JSON line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from popucom.web.benchmark import run


def test_the_web_benchmark_gives_every_figure(web_dist: Path, browser: Any) -> None:
    result = json.loads(json.dumps(run(1, batches=(1,), visits=(16,))))  # what the line holds
    fields = {"cpu", "avx2", "avx512", "chromium", "interactive_ms", "bytes_at_interactive", "bytes_transferred"}
    assert fields | {"cross_origin_isolated", "threads", "evals_per_s", "move_s", "speedup"} <= result.keys()
    assert result["cross_origin_isolated"] is True  # `popucom web` sends the headers
    onnx = result["onnxruntime_web"]
    assert result["backend"] == "popucom wasm (SIMD128)" and result["threads"] == 1
    assert result["model"].endswith(".pcnet") and onnx["model"].endswith(".onnx")
    assert onnx["backend"] == "onnxruntime-web" and onnx["threads"] >= 1
    for figures in (result, onnx):
        assert figures["evals_per_s"]["1"] > 0 and figures["move_s"]["16"] > 0
    assert result["speedup"]["evals_per_s"]["1"] > 0 and result["speedup"]["move_s"]["16"] > 0
    assert 0 < result["interactive_ms"] < 60_000
    assert 100_000 < result["bytes_at_interactive"] <= result["bytes_transferred"]
