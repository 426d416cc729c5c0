"""The inference backends as records: each one's name (as a config, `--backend` and
load_evaluator take it), the kinds of model file it runs and the devices it runs on. The
factory (factory.py) and the pre-flight check (preflight.py) choose and refuse by them; the
records stay apart from the code that builds the backends so that a run's config can be
checked without loading numpy or a runtime."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BackendRecord:
    name: str
    # The kinds of model file it runs: "onnx", "checkpoint", "plan", "network" (factory.model_kind).
    files: tuple[str, ...]
    devices: tuple[str, ...]  # "cpu", "cuda"
    title: str  # how a message names it


REGISTRY: dict[str, BackendRecord] = {
    record.name: record
    for record in (
        BackendRecord("native", ("checkpoint", "network"), ("cpu",), "native"),
        BackendRecord("openvino", ("onnx",), ("cpu",), "openvino"),
        BackendRecord("onnx", ("onnx",), ("cpu", "cuda"), "onnx"),
        BackendRecord("torch", ("checkpoint",), ("cpu", "cuda"), "torch"),
        BackendRecord("trt", ("onnx", "plan"), ("cuda",), "TensorRT"),
    )
}
BACKENDS = ("auto", *REGISTRY)
EXPORTED_BACKENDS = tuple(name for name, r in REGISTRY.items() if "onnx" in r.files)  # run an exported model
CHECKPOINT_BACKENDS = tuple(name for name, r in REGISTRY.items() if "checkpoint" in r.files)  # run a checkpoint


def device_refusal(backend: str, device: str) -> str | None:
    """Why `backend` cannot run on `device` (a setting that cannot work anywhere), or None."""
    record = REGISTRY.get(backend)
    if record is None or device in record.devices:
        return None
    if record.devices == ("cuda",):
        return f"the {record.title} backend runs on a GPU: use device 'cuda'"
    return f"the {record.title} backend runs on the CPU, not on device '{device}'"
