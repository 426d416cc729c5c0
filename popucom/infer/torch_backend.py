"""PyTorch evaluator (CPU or CUDA, eager or torch.compile).

On the CPU the batch is evaluated in chunks of `chunk` positions: the network's activations
for a chunk stay in the cores' caches, which makes a 256-position batch run as fast per
position as a 32-position one, and faster than in one piece (docs/benchmarks.md, "Design notes
behind the figures").
`threads` is the process-wide torch thread budget (popucom.infer.threads).

Self-play batches (PARALLEL_MIN_BATCH positions and more) go to `threads` Python worker
threads, each running whole chunks with one torch thread of its own (OpenMP's thread count is
per calling thread; torch releases the GIL inside operators). The network's many small
operators and the single-threaded C++ attention kernel scale badly inside one operator, and
two independent forwards do not (bench/inference.py --threads 2; docs/benchmarks.md, "Design
notes behind the figures").
Smaller batches (the GUI's, analysis) stay on the calling thread with torch's own threads, as
many of them as an AdaptiveBudget gives (popucom.infer.threads): the budget on an idle machine,
fewer while other processes keep cores busy, where torch's threads would wait on each other at
every operator. The process-wide budget is back after each call.

The native forward (the whole network in one C++ call, every CPU) is a backend of its
own (native_backend.py), which `auto` picks where it runs: this backend is always torch.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from ..nn.model import ExportWrapper, PopucomNet
from .contract import Backend
from .precision import cpu_matmul_dtype
from .threads import AdaptiveBudget, set_torch_threads

CPU_CHUNK = 32
PARALLEL_MIN_BATCH = 2 * CPU_CHUNK


def one_torch_thread() -> None:
    """A worker's own torch budget: OpenMP's thread count is per calling thread."""
    torch.set_num_threads(1)


_worker_pools: dict[tuple[int, int], ThreadPoolExecutor] = {}
_worker_pools_lock = threading.Lock()


def worker_pool(threads: int) -> ThreadPoolExecutor:
    """The process's worker threads for a budget: shared by every evaluator (the pipeline makes
    one per iteration) and made anew in a forked child, which has none of its parent's threads."""
    key = (os.getpid(), threads)
    with _worker_pools_lock:
        if key not in _worker_pools:
            _worker_pools[key] = ThreadPoolExecutor(
                threads, thread_name_prefix="popucom-torch", initializer=one_torch_thread
            )
        return _worker_pools[key]


class TorchEvaluator(Backend):
    def __init__(
        self,
        net: PopucomNet,
        device: str = "cpu",
        compile: bool = False,
        half: bool = False,
        threads: int | None = None,
        chunk: int | None = None,
        cpu_matmul: str | None = None,
    ) -> None:
        """cpu_matmul: auto | fp32 | bf16, the operand precision of the matrix products on the
        CPU (popucom.infer.precision; default $POPUCOM_CPU_MATMUL, else auto). It is set on `net`."""
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError("torch backend: CUDA was requested but torch sees no GPU")
        self.device = torch.device(device)
        self.threads = set_torch_threads(threads) if threads is not None else torch.get_num_threads()
        self.matmul_dtype = cpu_matmul_dtype(cpu_matmul) if self.device.type == "cpu" else torch.float32
        net.set_inference_matmul_dtype(self.matmul_dtype)
        self.model = ExportWrapper(net).to(self.device).eval()
        self.dtype = torch.float16 if half and self.device.type == "cuda" else torch.float32
        if self.dtype != torch.float32:
            self.model = self.model.to(self.dtype)
        self.chunk = chunk if chunk is not None else (CPU_CHUNK if self.device.type == "cpu" else 0)
        self.forward = torch.compile(self.model, dynamic=True) if compile else self.model
        self.feature_version = net.config.feature_version
        self.output_names = tuple(o.name for o in net.outputs)
        parallel = self.device.type == "cpu" and self.threads > 1 and not compile and self.chunk > 0
        self.workers = worker_pool(self.threads) if parallel else None
        self.budget = AdaptiveBudget(self.threads, adapt=None if self.device.type == "cpu" else False)

    @torch.inference_mode()
    def compute_outputs(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the deployed model (the network's outputs) as numpy arrays, keyed by name."""
        x = torch.from_numpy(np.ascontiguousarray(features, np.float32)).to(self.device, self.dtype, non_blocking=True)
        if self.workers is not None and len(x) >= PARALLEL_MIN_BATCH:
            parts = list(self.workers.map(self.forward_piece, self.parallel_pieces(x)))
        else:
            parts = self.on_calling_thread(x)
        outputs = [torch.cat(o) for o in zip(*parts)] if len(parts) > 1 else parts[0]
        return {name: o.float().cpu().numpy() for name, o in zip(self.output_names, outputs, strict=True)}

    def on_calling_thread(self, x: torch.Tensor) -> list[tuple[torch.Tensor, ...]]:
        """The forward of `x` in chunks on this thread, on the adaptive budget's torch threads."""
        process_threads = torch.get_num_threads()
        threads = min(self.budget(), process_threads)  # only ever fewer than the process's budget
        if threads != process_threads:
            torch.set_num_threads(threads)
        try:
            if self.chunk and len(x) > self.chunk:
                return [self.forward(c) for c in x.split(self.chunk)]
            return [self.forward(x)]
        finally:
            if threads != process_threads:
                torch.set_num_threads(process_threads)

    def parallel_pieces(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Equal pieces of at most `chunk` positions, a whole number per worker thread."""
        return x.tensor_split(self.threads * math.ceil(len(x) / (self.threads * self.chunk)))

    def forward_piece(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        with torch.inference_mode():  # grad mode is per thread
            return self.forward(x)

    def describe(self) -> str:
        mode = "compiled" if self.forward is not self.model else "eager"
        chunk = f", chunks of {self.chunk}" if self.chunk else ""
        threads = f"{self.threads} thread{'s' if self.threads > 1 else ''}" + (
            f" ({self.threads} workers x 1 from {PARALLEL_MIN_BATCH} positions)" if self.workers else ""
        )
        if self.budget.adapt:
            threads += ", fewer while other processes keep cores busy"
        matmul = f", {self.matmul_dtype} matrix products" if self.matmul_dtype != self.dtype else ""
        return f"torch {self.device} ({mode}, {self.dtype}{matmul}{chunk}, {threads})"
