"""Whether a backend can run here, asked before any work starts.

The pipeline first builds its network after the warm start (bot games and a supervised
training, half an hour on a 2-core CPU without AVX-512), so a backend this machine cannot run
would be refused only then. `check_backend` asks the machine and the model's config alone, with
no model file, and raises the refusal the evaluator would raise when built: the native forward's
network and its products' precision ($POPUCOM_CPU_MATMUL) on this CPU (nn.native), a missing
openvino or onnxruntime, an ONNX Runtime without the device's provider, torch without CUDA,
TensorRT without a GPU. `auto` picks among what is there, so it is checked only for what every
choice needs.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from .backends import BACKENDS, device_refusal

if TYPE_CHECKING:
    from ..nn.config import ModelConfig


def check_backend(backend: str, device: str, model: ModelConfig | None = None) -> None:
    """Nothing where `backend` on `device` can run `model`'s network here; else ValueError (a
    setting that cannot work anywhere) or RuntimeError (this machine), saying why."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend '{backend}' (choose {', '.join(BACKENDS)})")
    refusal = device_refusal(backend, device)
    if refusal is not None:
        raise ValueError(refusal)
    if device == "cpu" and backend in ("auto", "native", "torch"):
        from .precision import cpu_matmul_dtype

        cpu_matmul_dtype()  # a bad $POPUCOM_CPU_MATMUL, or bf16 on a CPU without bf16 arithmetic
    if backend == "native":
        _check_native(model)
    elif backend == "openvino":
        from .openvino_backend import import_openvino

        import_openvino()
    elif backend == "onnx":
        _check_onnxruntime(device)
    elif backend == "trt":
        from .trt_backend import _require_gpu

        _require_gpu()
    if device == "cuda" and backend in ("auto", "torch"):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError(f"backend {backend} on device cuda: torch sees no GPU here")


def _check_native(model: ModelConfig | None) -> None:
    import torch

    from ..nn.native import config_refusal
    from .precision import cpu_matmul_dtype

    if model is None:
        return
    refusal = config_refusal(model, bf16=cpu_matmul_dtype() == torch.bfloat16)
    if refusal is not None:
        raise ValueError(f"the native backend cannot run this network: {refusal}; use backend torch")


def _check_onnxruntime(device: str) -> None:
    if importlib.util.find_spec("onnxruntime") is None:
        raise RuntimeError("the onnx backend needs the onnxruntime package, which is not installed here")
    import onnxruntime as ort

    from .onnx_backend import PROVIDERS

    wanted = PROVIDERS.get(device)
    if wanted is not None and wanted not in ort.get_available_providers():
        raise RuntimeError(f"onnxruntime has no {wanted} here (available: {ort.get_available_providers()})")
