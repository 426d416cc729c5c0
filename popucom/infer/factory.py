"""One way to get an evaluator from a model file.

    load_evaluator("model.onnx")                          # ONNX Runtime on the CPU
    load_evaluator("ckpt.pt", device="cuda")              # PyTorch, from a training checkpoint
    load_evaluator("model.onnx", backend="trt")           # TensorRT engine built (or cached) beside it
    load_evaluator("engines/abc-trt10-H200-fp16-b1024.plan")  # a built TensorRT plan

The kind of file is told by its suffix (.onnx; .pt/.pth; .plan/.engine); `backend`
"auto" picks the natural backend for it. A file that is not a usable model (not
ours, corrupt, another feature version, a backend that cannot read it) is refused
with a ValueError that names the file and the reason; a missing file raises
FileNotFoundError; a backend that is not installed here raises RuntimeError. The
requested device is used or the call fails: never a silent CPU fallback.

`threads` is the network's CPU thread budget (ONNX Runtime intra-op threads,
torch.set_num_threads for the torch backend, which is process-wide).
"""

from __future__ import annotations

from pathlib import Path

from .contract import Evaluator

BACKENDS = ("auto", "onnx", "torch", "trt")
ONNX_SUFFIXES = (".onnx",)
CHECKPOINT_SUFFIXES = (".pt", ".pth")
PLAN_SUFFIXES = (".plan", ".engine")
MODEL_SUFFIXES = ONNX_SUFFIXES + CHECKPOINT_SUFFIXES + PLAN_SUFFIXES


def model_kind(path: str | Path) -> str:
    """'onnx', 'checkpoint' or 'plan' from the file name; ValueError for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix in ONNX_SUFFIXES:
        return "onnx"
    if suffix in CHECKPOINT_SUFFIXES:
        return "checkpoint"
    if suffix in PLAN_SUFFIXES:
        return "plan"
    raise ValueError(
        f"{path} is not a model file: want an ONNX model ({', '.join(ONNX_SUFFIXES)}), "
        f"a training checkpoint ({', '.join(CHECKPOINT_SUFFIXES)}) or a TensorRT plan "
        f"({', '.join(PLAN_SUFFIXES)})"
    )


def load_evaluator(
    path: str | Path,
    backend: str = "auto",
    device: str = "cpu",
    threads: int = 1,
    engine_cache: str | Path | None = None,
    max_batch: int = 1024,
    expect=None,
) -> Evaluator:
    """An evaluator for the model at `path` (see the module docstring).

    expect: a ModelConfig that a checkpoint must match (a run refuses a foreign one).

    engine_cache / max_batch: where the TensorRT engine of an ONNX model is built and cached
    (default: an `engines/` folder beside the model) and its largest batch.
    """
    path = Path(path)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend '{backend}' (choose {', '.join(BACKENDS)})")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    kind = model_kind(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    if backend == "auto":
        backend = {"onnx": "onnx", "checkpoint": "torch", "plan": "trt"}[kind]

    if backend == "onnx":
        if kind != "onnx":
            raise ValueError(
                f"{path}: ONNX Runtime reads .onnx models; export the checkpoint with `popucom export`"
                if kind == "checkpoint"
                else f"{path}: a TensorRT plan runs only on the trt backend"
            )
        from .onnx_backend import OnnxEvaluator

        return OnnxEvaluator(path, device=device, threads=threads)

    if backend == "torch":
        if kind != "checkpoint":
            raise ValueError(
                f"{path}: the torch backend loads training checkpoints (.pt); use backend onnx "
                "or trt for an exported model"
            )
        from .torch_backend import TorchEvaluator

        return TorchEvaluator(_checkpoint_network(path, expect), device=device, threads=threads)

    # trt
    from .trt_backend import TensorRTEvaluator

    if device != "cuda":
        raise ValueError("the TensorRT backend runs on a GPU: use device 'cuda'")
    if kind == "plan":
        return TensorRTEvaluator(None, plan=path)
    if kind == "checkpoint":
        raise ValueError(f"{path}: TensorRT builds engines from ONNX models; export the checkpoint first")
    return TensorRTEvaluator(path, engine_cache or path.parent / "engines", max_batch=max_batch)


def _checkpoint_network(path: Path, expect=None):
    # Lazily: loading an ONNX model or a plan never imports torch.
    from ..nn.checkpoint import load_network

    return load_network(path, expect=expect)
