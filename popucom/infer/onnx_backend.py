"""ONNX Runtime evaluator: CPU, or CUDA where the onnxruntime-gpu build has it.

The provider actually in use is checked after the session is created: a
requested GPU provider that onnxruntime silently dropped is an error, never a
quiet CPU fallback. Outputs are looked up by name (popucom.nn.outputs.OUTPUTS),
and their shapes are checked against it when the model is opened.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import _core
from ..nn.export import INPUT_NAME, check_metadata, read_metadata
from ..nn.outputs import OUTPUT_NAMES, OUTPUTS
from .contract import EvalOutput
from .threads import onnx_session_options

PROVIDERS = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider"}


class OnnxEvaluator:
    def __init__(self, path: str | Path, device: str = "cpu", threads: int | None = 1) -> None:
        import onnxruntime as ort

        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no model at {self.path}")
        self.metadata = read_metadata(self.path)
        check_metadata(self.metadata, self.path)
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
        self.session = ort.InferenceSession(str(self.path), sess_options=options, providers=[wanted])
        if self.session.get_providers()[0] != wanted:
            raise RuntimeError(f"onnxruntime fell back to {self.session.get_providers()[0]} instead of {wanted}")
        inputs = self.session.get_inputs()
        if (
            len(inputs) != 1
            or inputs[0].name != INPUT_NAME
            or list(inputs[0].shape[1:]) != [_core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE]
        ):
            raise ValueError(
                f"{self.path}: input is {[(i.name, i.shape) for i in inputs]}, expected "
                f"'{INPUT_NAME}' of shape [N, {_core.NUM_FEATURE_PLANES}, 9, 9]"
            )
        outputs = {o.name: list(o.shape[1:]) for o in self.session.get_outputs()}
        expected = {o.name: list(o.shape) for o in OUTPUTS}
        if outputs != expected:
            raise ValueError(f"{self.path}: outputs (name: shape per position) are {outputs}, expected {expected}")
        self.feature_version = int(self.metadata["feature_version"])
        self.preset = self.metadata.get("preset", "?")
        self.device = device
        self.calls = 0

    def run_all(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the model, keyed by name (OUTPUT_NAMES)."""
        self.calls += 1
        arrays = self.session.run(list(OUTPUT_NAMES), {INPUT_NAME: np.ascontiguousarray(features, np.float32)})
        return dict(zip(OUTPUT_NAMES, arrays))

    def __call__(self, features: np.ndarray) -> EvalOutput:
        return EvalOutput.from_outputs(self.run_all(features))

    def describe(self) -> str:
        return (
            f"onnxruntime {self.device} ({self.session.get_providers()[0]}, {self.threads} threads), "
            f"model {self.path.name} [{self.preset}]"
        )
