"""One way to get an evaluator from a model file.

    load_evaluator("model.onnx")                          # OpenVINO on the CPU (ONNX Runtime without it)
    load_evaluator("ckpt.pt")                             # the fastest CPU path for a checkpoint (below)
    load_evaluator("ckpt.pt", device="cuda")              # PyTorch, from a training checkpoint
    load_evaluator("model.onnx", backend="trt")           # TensorRT engine built (or cached) beside it
    load_evaluator("engines/abc-trt10-H200-fp16-b1024.plan")  # a built TensorRT plan
    load_evaluator("model.pcnet")                         # a network file on the native forward, no torch

Backends: `onnx` (ONNX Runtime), `openvino` (OpenVINO, CPU) and `trt` (TensorRT, GPU) run
exported models; `torch` (PyTorch) and `native` (the whole network in C++, every CPU)
run training checkpoints, and `native` network files (popucom.nn.native_file) too. The kind of
file is told by its suffix (.onnx; .pt/.pth; .plan/.engine; .pcnet); `backend` "auto" picks
the fastest one available for it by the measured rule of popucom.infer.choice: for a checkpoint
on the CPU native where it runs, else OpenVINO on the exported model beside it (NAME.onnx, or
`exported`), else torch; a network file runs native. Every evaluator's describe()
names its backend, which every entry prints; the reason for the choice is logged at DEBUG (INFO
lines go to stdout, which is the engine's protocol channel), a skipped exported model of
another network as a warning.

A file that is not a usable model (not ours, corrupt, another feature version, a backend that
cannot read it) is refused with a ValueError that names the file and the reason; a missing
file raises FileNotFoundError; a backend that is not installed here, or that this CPU cannot
run, raises RuntimeError. The requested device is used or the call fails: never a silent CPU
fallback.

`threads` is the network's CPU thread budget (ONNX Runtime intra-op threads, OpenVINO's
inference threads, the native forward's threads, torch.set_num_threads for the torch backend,
which is process-wide).
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..nn.native_file import NETWORK_FILE_SUFFIX
from .backends import BACKENDS, CHECKPOINT_BACKENDS, EXPORTED_BACKENDS, REGISTRY, device_refusal
from .choice import Choice, Machine, choose_backend, exported_beside
from .contract import Evaluator

logger = logging.getLogger(__name__)

# The largest output difference between an exported model and the checkpoint beside it that
# still counts as the same network: the runtimes agree to ~3e-5 on the shipped model, another
# iteration's weights differ by far more.
SAME_NETWORK_TOLERANCE = 1e-3
ONNX_SUFFIXES = (".onnx",)
CHECKPOINT_SUFFIXES = (".pt", ".pth")
PLAN_SUFFIXES = (".plan", ".engine")
NETWORK_FILE_SUFFIXES = (NETWORK_FILE_SUFFIX,)
MODEL_SUFFIXES = ONNX_SUFFIXES + CHECKPOINT_SUFFIXES + PLAN_SUFFIXES + NETWORK_FILE_SUFFIXES


def model_kind(path: str | Path) -> str:
    """'onnx', 'checkpoint', 'plan' or 'network' from the file name; ValueError for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix in ONNX_SUFFIXES:
        return "onnx"
    if suffix in CHECKPOINT_SUFFIXES:
        return "checkpoint"
    if suffix in PLAN_SUFFIXES:
        return "plan"
    if suffix in NETWORK_FILE_SUFFIXES:
        return "network"
    raise ValueError(
        f"{path} is not a model file: want an ONNX model ({', '.join(ONNX_SUFFIXES)}), "
        f"a training checkpoint ({', '.join(CHECKPOINT_SUFFIXES)}), a TensorRT plan "
        f"({', '.join(PLAN_SUFFIXES)}) or a network file ({', '.join(NETWORK_FILE_SUFFIXES)})"
    )


def load_evaluator(
    path: str | Path,
    backend: str = "auto",
    device: str = "cpu",
    threads: int = 1,
    engine_cache: str | Path | None = None,
    max_batch: int = 1024,
    expect=None,
    exported: str | Path | None = None,
    machine: Machine | None = None,
) -> Evaluator:
    """An evaluator for the model at `path` (see the module docstring).

    expect: a ModelConfig that a checkpoint must match (a run refuses a foreign one).

    engine_cache / max_batch: where the TensorRT engine of an ONNX model is built and cached
    (default: an `engines/` folder beside the model) and its largest batch.

    exported: for a checkpoint under `auto`, its exported model (default: NAME.onnx beside it);
    machine: what `auto` asks of this machine (default Machine.here(); tests give their own).
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
        return _load_auto(path, kind, device, threads, engine_cache, max_batch, expect, exported, machine)
    _check_named_backend(path, kind, backend, device)
    return _load_named(path, kind, backend, device, threads, engine_cache, max_batch, expect)


def _check_named_backend(path: Path, kind: str, backend: str, device: str) -> None:
    """ValueError where the backend asked for cannot run this kind of file on this device."""
    if kind not in REGISTRY[backend].files:
        if kind == "checkpoint":
            raise ValueError(
                f"{path}: the {backend} backend runs exported models (.onnx); export the checkpoint with "
                f"`popucom export`, or use backend {_either((*CHECKPOINT_BACKENDS, 'auto'))}"
            )
        if kind == "plan":
            raise ValueError(f"{path}: a TensorRT plan runs only on the trt backend")
        if kind == "network":
            raise ValueError(f"{path}: a network file runs only on the native backend (or auto)")
        raise ValueError(
            f"{path}: the {backend} backend loads training checkpoints (.pt); use backend "
            f"{_either(EXPORTED_BACKENDS)} for an exported model"
        )
    refusal = device_refusal(backend, device)
    if refusal is not None:
        raise ValueError(refusal)


def _either(names: tuple[str, ...]) -> str:
    """'a, b or c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _load_named(
    path: Path,
    kind: str,
    backend: str,
    device: str,
    threads: int,
    engine_cache: str | Path | None,
    max_batch: int,
    expect,
) -> Evaluator:
    """The named backend's evaluator (each imported only when asked for)."""
    if backend == "onnx":
        from .onnx_backend import OnnxEvaluator

        return OnnxEvaluator(path, device=device, threads=threads)
    if backend == "openvino":
        from .openvino_backend import OpenVinoEvaluator

        return OpenVinoEvaluator(path, threads=threads)
    if backend == "torch":
        from .torch_backend import TorchEvaluator

        return TorchEvaluator(_checkpoint_network(path, expect), device=device, threads=threads)
    if backend == "native":
        from .native_backend import NativeEvaluator

        if kind == "network":
            return NativeEvaluator.from_network_file(path, threads=threads)
        return NativeEvaluator.of_network(_checkpoint_network(path, expect), threads=threads)
    from .trt_backend import TensorRTEvaluator

    if kind == "plan":
        return TensorRTEvaluator(None, plan=path)
    return TensorRTEvaluator(path, engine_cache or path.parent / "engines", max_batch=max_batch)


def _load_auto(
    path: Path,
    kind: str,
    device: str,
    threads: int,
    engine_cache: str | Path | None,
    max_batch: int,
    expect,
    exported: str | Path | None,
    machine: Machine | None,
) -> Evaluator:
    """The evaluator of `auto`: the backend choose_backend picks, loaded."""
    machine = machine or Machine.here()
    if kind != "checkpoint" or device != "cpu":
        choice = choose_backend(kind, device, machine)
        logger.debug(f"backend auto: {choice.backend} ({choice.why})")
        return load_evaluator(path, choice.backend, device, threads, engine_cache, max_batch, expect)

    from ..nn.native import network_refusal

    net = _checkpoint_network(path, expect)
    exported = Path(exported) if exported is not None and Path(exported).is_file() else exported_beside(path)
    choice = choose_backend(kind, device, machine, network_refusal(net), exported)
    if choice.backend == "native":
        from .native_backend import NativeEvaluator

        try:
            evaluator: Evaluator = NativeEvaluator.of_network(net, threads=threads)
        except ValueError as e:  # a head width or build without kernels: the next path serves
            choice = choose_backend(kind, device, machine, str(e), exported)
        else:
            logger.debug(f"backend auto: native ({choice.why})")
            return evaluator
    if choice.backend == "openvino" and exported is not None:
        same = _same_network_or_none(net, exported, threads)
        if same is not None:
            logger.debug(f"backend auto: openvino ({choice.why})")
            return same
        choice = Choice("torch", f"{exported} is not the network of {path.name}")
        logger.warning(f"backend auto: torch ({choice.why})")
    else:
        logger.debug(f"backend auto: torch ({choice.why})")
    from .torch_backend import TorchEvaluator

    return TorchEvaluator(net, device=device, threads=threads)


def _same_network_or_none(net, exported: Path, threads: int) -> Evaluator | None:
    """OpenVINO on `exported` where its outputs are those of `net` (a few positions, a few
    milliseconds): the file beside a checkpoint may be an older export or another network."""
    from .openvino_backend import OpenVinoEvaluator
    from .parity import output_difference

    try:
        evaluator = OpenVinoEvaluator(exported, threads=threads)
        same = output_difference(net, evaluator.run_all, batch=8, seed=34) <= SAME_NETWORK_TOLERANCE
    except (ValueError, RuntimeError) as e:
        logger.warning(f"{exported} beside the checkpoint is unusable: {e}")
        return None
    return evaluator if same else None


def _checkpoint_network(path: Path, expect=None):
    # Lazily: loading an ONNX model or a plan never imports torch.
    from ..nn.checkpoint import load_network

    return load_network(path, expect=expect)
