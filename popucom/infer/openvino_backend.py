"""OpenVINO evaluator: an exported model (.onnx) on the CPU through Intel's OpenVINO runtime.

For a network the native forward does not serve, and for an exported model, this is the fastest
CPU path we have, well ahead of torch eager fp32 and ONNX Runtime (docs/benchmarks.md,
"Inference backends"). OpenVINO picks its kernels
for the CPU it finds (oneDNN's brgemm, MLAS, its own JIT code), on x86-64 and ARM alike.

Settings, all explicit so that the numbers do not move with OpenVINO's defaults or the CPU:
- INFERENCE_PRECISION_HINT f32. OpenVINO's default on a CPU with AVX512-BF16 or AMX is bf16
  everywhere, which moved the shipped model's outputs far beyond rounding; f32 stays within
  rounding of ONNX Runtime (docs/benchmarks.md, "Same play on every path").
- The thread budget: INFERENCE_NUM_THREADS `threads` in one stream (NUM_STREAMS 1, the LATENCY
  hint): one batch at a time, as the search sends them. Its TBB threads sleep when idle (a
  2-thread evaluator used no CPU time between calls, measured beside 10 ms pauses).
- ENABLE_CPU_PINNING off. OpenVINO pins its threads to cores by default on Linux; two evaluators
  (the arena's two players, a GUI beside self-play) would be pinned to the same cores and take
  turns, and a pinned thread cannot move off a core another process is using.
- SCHEDULING_CORE_TYPE ANY_CORE (on a hybrid laptop the budget may land on either kind of core)
  and ENABLE_HYPER_THREADING on, so the budget counts logical cores as machine_threads does.

Each calling thread gets an infer request of its own (a request serves one call at a time).
openvino is imported here only: a missing install is a RuntimeError saying how to get it.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..nn.export import INPUT_NAME, output_names
from .contract import Backend
from .exported_model import Port, check_interface, open_exported
from .threads import resolve_threads


def import_openvino():
    """The openvino module, or RuntimeError saying how to install it."""
    try:
        import openvino
    except ImportError as e:
        raise RuntimeError(
            f"the openvino backend needs the openvino package, which is not installed here ({e}); "
            "`pip install openvino` (the default install pulls it where OpenVINO ships wheels), "
            "or use backend onnx or torch"
        ) from e
    return openvino


def compile_settings(threads: int) -> dict[str, object]:
    """The CPU plugin's properties for a budget of `threads` (why each: the module docstring)."""
    return {
        "INFERENCE_PRECISION_HINT": "f32",
        "PERFORMANCE_HINT": "LATENCY",
        "NUM_STREAMS": 1,
        "INFERENCE_NUM_THREADS": threads,
        "ENABLE_CPU_PINNING": False,
        "SCHEDULING_CORE_TYPE": "ANY_CORE",
        "ENABLE_HYPER_THREADING": True,
    }


# OpenVINO's element type names in numpy's words, where they differ (others, such as bf16, stay).
OV_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "i64": "int64", "i32": "int32"}


def _ports(port) -> list[Port]:
    """An OpenVINO model input or output, once per name, as exported_model sees a port: sizes
    (None for a dynamic dimension) and the element type in numpy's words."""
    shape = [d.get_length() if d.is_static else None for d in port.get_partial_shape()]
    kind = port.get_element_type().get_type_name()
    return [Port(name, shape, OV_DTYPES.get(kind, kind)) for name in sorted(port.get_names())]


class OpenVinoEvaluator(Backend):
    def __init__(self, path: str | Path, threads: int | None = 1) -> None:
        ov = import_openvino()
        self.path = Path(path)
        self.metadata = open_exported(self.path)
        self.output_names = output_names(self.metadata)
        self.threads = resolve_threads(threads)
        core = ov.Core()
        try:
            # OpenVINO would resolve a tensor stored outside the file (ONNX external data) against
            # the working directory; open_exported has refused any such tensor, wherever it sits
            # in the graph (popucom.nn.export.external_tensor), so the model reads only itself.
            model = core.read_model(self.path.read_bytes())
        except RuntimeError as e:
            raise ValueError(f"{self.path}: OpenVINO cannot read it ({str(e).splitlines()[0]})") from e
        check_interface(
            self.path,
            [port for i in model.inputs for port in _ports(i)],
            [port for o in model.outputs for port in _ports(o)],
            self.output_names,
        )
        self.compiled = core.compile_model(model, "CPU", compile_settings(self.threads))
        self.version = ov.get_version().split("-")[0]
        self.outputs = [self.compiled.output(name) for name in self.output_names]
        self.feature_version = int(self.metadata["feature_version"])
        self.preset = self.metadata.get("preset", "?")
        self.device = "cpu"
        self._requests = threading.local()

    def request(self):
        """This thread's infer request."""
        request = getattr(self._requests, "request", None)
        if request is None:
            request = self._requests.request = self.compiled.create_infer_request()
        return request

    def compute_outputs(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the model, keyed by name (output_names)."""
        results = self.request().infer({INPUT_NAME: np.ascontiguousarray(features, np.float32)})
        return {name: results[output] for name, output in zip(self.output_names, self.outputs, strict=True)}

    def describe(self) -> str:
        threads = f"{self.threads} thread{'s' if self.threads > 1 else ''}"
        return f"openvino {self.version} cpu (fp32, {threads}, 1 stream), model {self.path.name} [{self.preset}]"
