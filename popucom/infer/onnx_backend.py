"""ONNX Runtime evaluator: CPU, or CUDA where the onnxruntime-gpu build has it.

The provider actually in use is checked after the session is created: a
requested GPU provider that onnxruntime silently dropped is an error, never a
quiet CPU fallback. Outputs are looked up by name (popucom.nn.outputs.OUTPUTS);
the model is checked as every runtime here checks an exported one (exported_model.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..nn.export import INPUT_NAME, output_names
from .contract import Backend
from .exported_model import Port, check_interface, open_exported
from .threads import onnx_session_options

PROVIDERS = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider"}
# ONNX Runtime's element types ("tensor(float)") in numpy's words, where they differ.
ORT_DTYPES = {"float": "float32", "double": "float64"}


def _first_line(error: Exception) -> str:
    """onnxruntime's reason, without its "[ONNXRuntimeError] : 10 : ... Load model from PATH failed:" lead."""
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text.split(" failed:", 1)[-1].strip()[:300]


def _port(arg) -> Port:
    """An onnxruntime NodeArg as exported_model sees a port."""
    kind = arg.type.removeprefix("tensor(").removesuffix(")")
    return Port(arg.name, arg.shape, ORT_DTYPES.get(kind, kind))


class OnnxEvaluator(Backend):
    def __init__(self, path: str | Path, device: str = "cpu", threads: int | None = 1) -> None:
        import onnxruntime as ort

        self.path = Path(path)
        self.metadata = open_exported(self.path)
        self.output_names = output_names(self.metadata)
        if device not in PROVIDERS:
            raise ValueError(f"unknown device '{device}' for onnxruntime (choose cpu or cuda)")
        wanted = PROVIDERS[device]
        if wanted not in ort.get_available_providers():
            raise RuntimeError(
                f"onnxruntime has no {wanted} here (available: {ort.get_available_providers()}); "
                "install onnxruntime-gpu for cuda"
            )
        options = onnx_session_options(threads)
        self.threads = options.intra_op_num_threads
        try:
            self.session = ort.InferenceSession(str(self.path), sess_options=options, providers=[wanted])
        except Exception as e:  # noqa: BLE001 - onnxruntime's own kinds (InvalidGraph, Fail, ...) derive from Exception
            raise ValueError(f"{self.path}: ONNX Runtime cannot load it ({_first_line(e)})") from e
        if self.session.get_providers()[0] != wanted:
            raise RuntimeError(f"onnxruntime fell back to {self.session.get_providers()[0]} instead of {wanted}")
        check_interface(
            self.path,
            [_port(i) for i in self.session.get_inputs()],
            [_port(o) for o in self.session.get_outputs()],
            self.output_names,
        )
        self.feature_version = int(self.metadata["feature_version"])
        self.preset = self.metadata.get("preset", "?")
        self.device = device

    def compute_outputs(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the model, keyed by name (output_names)."""
        arrays = self.session.run(list(self.output_names), {INPUT_NAME: np.ascontiguousarray(features, np.float32)})
        return dict(zip(self.output_names, arrays, strict=True))

    def describe(self) -> str:
        return (
            f"onnxruntime {self.device} ({self.session.get_providers()[0]}, {self.threads} threads), "
            f"model {self.path.name} [{self.preset}]"
        )
