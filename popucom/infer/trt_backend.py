"""TensorRT evaluator (TensorRT 10+ Python API, device buffers from torch CUDA tensors).

Engines are built from the exported ONNX with one dynamic-batch optimisation
profile and FP16 (or BF16), and cached on disk under a key made of the model's
hash, the TensorRT version and the GPU name, so a model change or another GPU
never reuses a stale engine. Everything here imports lazily: a CPU machine
never needs tensorrt. Output buffers are named and shaped by popucom.nn.outputs.OUTPUTS.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .. import _core
from ..fileio import read_metadata_text, write_bytes_atomic
from ..nn.export import INPUT_NAME, check_metadata, output_names, read_metadata
from ..nn.outputs import OUTPUTS_BY_NAME
from .contract import Backend

logger = logging.getLogger(__name__)


def _require_gpu():
    try:
        import tensorrt as trt
        import torch
    except ImportError as e:
        raise RuntimeError(f"the TensorRT backend needs the [trt] extra (tensorrt, torch with CUDA): {e}") from e
    if not torch.cuda.is_available():
        raise RuntimeError("the TensorRT backend needs a CUDA GPU, and torch sees none")
    if int(trt.__version__.split(".")[0]) < 10:
        raise RuntimeError(f"the TensorRT backend needs TensorRT 10 or newer, found {trt.__version__}")
    return trt, torch


def engine_cache_path(onnx_path: str | Path, cache_dir: str | Path, precision: str, max_batch: int) -> Path:
    trt, torch = _require_gpu()
    model_hash = hashlib.sha256(Path(onnx_path).read_bytes()).hexdigest()[:16]
    gpu = re.sub(r"[^A-Za-z0-9]+", "-", torch.cuda.get_device_name(0)).strip("-")
    return Path(cache_dir) / f"{model_hash}-trt{trt.__version__}-{gpu}-{precision}-b{max_batch}.plan"


def build_engine(
    onnx_path: str | Path,
    cache_dir: str | Path,
    max_batch: int = 1024,
    precision: str = "fp16",
    workspace_gb: float = 2.0,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Builds (or finds in the cache) the engine for a model; returns the plan's path.
    The notice of a build goes to `log` if given, else to this module's logger."""
    trt, _ = _require_gpu()
    check_metadata(read_metadata(onnx_path), onnx_path)
    plan = engine_cache_path(onnx_path, cache_dir, precision, max_batch)
    if plan.exists():
        return plan
    notice = log or logger.info
    notice(
        f"building TensorRT engine for {Path(onnx_path).name} ({precision}, batch 1..{max_batch}); "
        "this takes a minute or two and is cached"
    )
    trt_logger = trt.Logger(trt.Logger.WARNING)
    builder = trt.Builder(trt_logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, trt_logger)
    if not parser.parse(Path(onnx_path).read_bytes()):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise RuntimeError(f"TensorRT cannot parse {onnx_path}: {errors}")
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, int(workspace_gb * 2**30))
    if precision == "fp16":
        config.set_flag(trt.BuilderFlag.FP16)
    elif precision == "bf16":
        config.set_flag(trt.BuilderFlag.BF16)
    elif precision != "fp32":
        raise ValueError(f"unknown precision '{precision}' (fp16, bf16 or fp32)")
    profile = builder.create_optimization_profile()
    shape = (_core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE)
    profile.set_shape(INPUT_NAME, (1, *shape), (max(1, max_batch // 2), *shape), (max_batch, *shape))
    config.add_optimization_profile(profile)
    serialized = builder.build_serialized_network(network, config)
    if serialized is None:
        raise RuntimeError(f"TensorRT failed to build an engine for {onnx_path}")
    # A plan cannot carry the model's metadata, so it travels beside it: a plan opened on its own
    # (load_evaluator("x.plan")) is checked like the ONNX it came from.
    sidecar = {**read_metadata(onnx_path), "max_batch": str(max_batch), "precision": precision}
    write_bytes_atomic(plan_metadata_path(plan), json.dumps(sidecar).encode())
    return write_bytes_atomic(plan, bytes(serialized))


def plan_metadata_path(plan: str | Path) -> Path:
    return Path(plan).with_suffix(Path(plan).suffix + ".json")


def read_plan_metadata(plan: str | Path) -> dict[str, str]:
    """The metadata of the ONNX model a plan was built from (written by build_engine)."""
    path = plan_metadata_path(plan)
    try:
        metadata = json.loads(read_metadata_text(path, "plan metadata"))
    except (OSError, ValueError) as e:
        raise ValueError(
            f"{plan}: no readable model metadata at {path} ({e}); rebuild the engine with "
            "`popucom build-engine --model MODEL.onnx`, or open the ONNX model itself"
        ) from e
    check_metadata(metadata, plan)
    return metadata


class TensorRTEvaluator(Backend):
    def __init__(
        self,
        onnx_path: str | Path | None,
        cache_dir: str | Path | None = None,
        max_batch: int = 1024,
        precision: str = "fp16",
        log: Callable[[str], None] | None = None,
        plan: str | Path | None = None,
    ) -> None:
        """From an ONNX model (its engine built or found in cache_dir), or from a built `plan`
        (onnx_path None; the plan's metadata sidecar says what it is)."""
        trt, torch = _require_gpu()
        self.torch = torch
        if plan is not None:
            self.metadata = read_plan_metadata(plan)
            self.plan = Path(plan)
            max_batch = int(self.metadata.get("max_batch", max_batch))
        else:
            if cache_dir is None:
                raise ValueError("TensorRTEvaluator needs a cache_dir for the engine built from the ONNX model")
            self.metadata = read_metadata(onnx_path)
            check_metadata(self.metadata, onnx_path)
            self.plan = build_engine(onnx_path, cache_dir, max_batch, precision, log=log)
        self.runtime = trt.Runtime(trt.Logger(trt.Logger.WARNING))
        self.engine = self.runtime.deserialize_cuda_engine(self.plan.read_bytes())
        if self.engine is None:
            raise RuntimeError(f"cannot load TensorRT engine {self.plan}; delete it to rebuild")
        self.context = self.engine.create_execution_context()
        names = [self.engine.get_tensor_name(i) for i in range(self.engine.num_io_tensors)]
        self.output_names = output_names(self.metadata)
        missing = [n for n in (INPUT_NAME, *self.output_names) if n not in names]
        if missing:
            raise ValueError(f"TensorRT engine {self.plan} lacks tensors {missing}")
        self.max_batch = max_batch
        self.feature_version = int(self.metadata["feature_version"])
        self.device = torch.device("cuda")
        self.stream = torch.cuda.Stream()

    def compute_outputs(self, features: np.ndarray) -> dict[str, np.ndarray]:
        torch = self.torch
        n = len(features)
        if n > self.max_batch:
            raise ValueError(f"batch {n} exceeds the engine's maximum {self.max_batch}")
        with torch.cuda.stream(self.stream):
            x = torch.from_numpy(np.ascontiguousarray(features, np.float32)).to(self.device, non_blocking=True)
            self.context.set_input_shape(INPUT_NAME, tuple(x.shape))
            self.context.set_tensor_address(INPUT_NAME, x.data_ptr())
            outputs = {}
            for name in self.output_names:
                outputs[name] = torch.empty((n, *OUTPUTS_BY_NAME[name].shape), dtype=torch.float32, device=self.device)
                self.context.set_tensor_address(name, outputs[name].data_ptr())
            if not self.context.execute_async_v3(self.stream.cuda_stream):
                raise RuntimeError("TensorRT execution failed")
            self.stream.synchronize()
        return {name: o.cpu().numpy() for name, o in outputs.items()}

    def describe(self) -> str:
        return f"TensorRT on {self.torch.cuda.get_device_name(0)} (engine {self.plan.name})"
