"""Network evaluations per second per backend/precision at batch 1, 16 and 256: ONE JSON line.

    OMP_NUM_THREADS=1 python bench/inference.py [--preset small | --model CKPT.pt] [--threads 1] [--repeats 5]

--model times a trained checkpoint (e.g. weights/popucom-small-v2.pt) instead of an untrained
network of the preset.

Candidates, interleaved round by round so that load from other processes hits all alike
(the medians of `repeats` rounds are reported):
  reference      the plain forward of popucom/nn/reference.py (eager torch, no kernels: the baseline of the ratios)
  torch_fp32     TorchEvaluator with fp32 products (folded weights, the C++ attention and depth-mix
                 kernels, cached PoPE tables, chunks of 32; from 64 positions on `threads` worker
                 threads of one torch thread)
  torch_no_kernel  the same with torch's attention (SDPA) in place of the C++ kernel
  torch_no_depth_kernel  the same with the attention-residual mixes in torch, not csrc/nn/depth_mix
  torch_bf16     the same under CPU bf16 autocast (only where the CPU has bf16 arithmetic)
  torch_bf16_products  torch_fp32 with bf16 operands in the sub-layers' matrix products only
                 (popucom.infer.precision; only where the CPU has bf16 arithmetic)
  torch_bf16_dots  that, and the attention kernel's logits and value sums as bf16 dot products
                 (AVX512-BF16)
  native         the whole network in one C++ call (the native backend), bf16 products and dots,
                 pieces of 8 positions on `threads` threads: what `auto` runs a checkpoint on
                 where the CPU has AVX512-BF16
  native_fp32    the same in float32, on the widest kernels the CPU runs (AVX-512, AVX2/FMA or
                 the build's own level, as $POPUCOM_CPU_ISA caps them): `auto` where the CPU
                 has no AVX512-BF16, or with POPUCOM_CPU_MATMUL=fp32
  openvino       OpenVINO on the exported model, fp32, one stream of `threads` threads (the
                 openvino backend): `auto` for a network the native forward does not serve;
                 only where it is installed
  onnx_fp32      ONNX Runtime, ORT_ENABLE_ALL
  onnx_int8      the same model after onnxruntime's dynamic int8 quantisation (weights int8,
                 activations quantised per call)
  torch_compiled TorchEvaluator under torch.compile (dynamic shapes); its compile time is reported
Also: the mHC net's time over the same net without mHC (optimised and reference), batch 32.
"""

import popucom  # noqa: F401  first: it sets OpenMP's wait policy before torch loads (popucom/cpu_load.py)

# isort: split

import argparse
import copy
import importlib.util
import json
import tempfile
import time
from pathlib import Path

import torch

from popucom import _core
from popucom.benchmarks import evaluations_per_s, machine_info
from popucom.data.positions import random_features
from popucom.infer.onnx_backend import OnnxEvaluator
from popucom.infer.openvino_backend import OpenVinoEvaluator
from popucom.infer.precision import cpu_has_bf16
from popucom.infer.threads import onnx_session_options, set_torch_threads
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn import PopucomNet, layers, preset
from popucom.nn.checkpoint import load_network
from popucom.nn.export import export_onnx
from popucom.nn.native import NativeForward, native_forward_refusal
from popucom.nn.reference import eager_reference


def int8_session(onnx_path: Path, threads: int):
    """A run function over the dynamically int8-quantised copy of the model."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantized = onnx_path.with_name("model.int8.onnx")
    quantize_dynamic(str(onnx_path), str(quantized), weight_type=QuantType.QInt8)
    session = ort.InferenceSession(str(quantized), onnx_session_options(threads), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return lambda x: session.run(None, {name: x})


def bf16_candidates(net: PopucomNet, evaluator: TorchEvaluator, threads: int) -> dict:
    """The torch paths in bfloat16 (autocast, bf16 products, bf16 dots), for a CPU that has it."""

    def bf16(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return evaluator.run_all(x)

    products = TorchEvaluator(copy.deepcopy(net), threads=threads, cpu_matmul="bf16")
    products.model.net.set_inference_matmul_dtype(torch.bfloat16, attention_dots=torch.float32)
    dots = TorchEvaluator(copy.deepcopy(net), threads=threads, cpu_matmul="bf16")
    return {"torch_bf16": bf16, "torch_bf16_products": products.run_all, "torch_bf16_dots": dots.run_all}


def native_candidates(net: PopucomNet, threads: int) -> dict:
    """The native forward in bf16 and fp32, where it serves this network on this CPU."""
    return {
        name: NativeForward(copy.deepcopy(net), threads=threads, bf16=bf16)
        for name, bf16 in (("native", True), ("native_fp32", False))
        if native_forward_refusal(net, bf16=bf16) is None
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 256])
    parser.add_argument("--model", type=Path, help="a trained checkpoint (.pt) to time instead of --preset")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="time only these candidates (and the reference)")
    args = parser.parse_args()

    threads = set_torch_threads(args.threads)
    torch.manual_seed(0)
    net = load_network(args.model) if args.model else PopucomNet(preset(args.preset)).eval()
    onnx_path = export_onnx(net, Path(tempfile.mkdtemp(prefix="popucom-bench-")) / "model.onnx")
    evaluator = TorchEvaluator(net, threads=threads, cpu_matmul="fp32")

    def reference(x):
        with torch.inference_mode():
            return eager_reference(net, torch.from_numpy(x))

    def without(kernel_flag: str):
        def run(x):
            setattr(layers, kernel_flag, False)
            try:
                return evaluator.run_all(x)
            finally:
                setattr(layers, kernel_flag, True)

        return run

    candidates = {
        "reference": reference,
        "torch_fp32": evaluator.run_all,
        "torch_no_kernel": without("use_attention_kernel"),
        "torch_no_depth_kernel": without("use_depth_kernel"),
        "onnx_fp32": OnnxEvaluator(onnx_path, threads=threads).run_all,
    }

    def wanted(name: str) -> bool:
        return not args.only or name in args.only

    compile_seconds = int8_error = None
    if wanted("torch_compiled"):
        compiled = TorchEvaluator(copy.deepcopy(net), threads=threads, compile=True, cpu_matmul="fp32")
        start = time.perf_counter()
        for b in args.batches:  # compiles (the first call) and specialises for each batch size
            compiled.run_all(random_features(b, seed=b, komi_range=5))
        compile_seconds = round(time.perf_counter() - start, 1)
        candidates["torch_compiled"] = compiled.run_all
    if wanted("onnx_int8"):
        candidates["onnx_int8"] = int8_session(onnx_path, threads)
        probe = random_features(64, seed=1, komi_range=5)
        int8_error = round(
            float(abs(candidates["onnx_int8"](probe)[0] - evaluator.run_all(probe)["policy_logits"]).max()), 4
        )
    if cpu_has_bf16():
        candidates.update(bf16_candidates(net, evaluator, threads))
    if wanted("openvino") and importlib.util.find_spec("openvino") is not None:
        candidates["openvino"] = OpenVinoEvaluator(onnx_path, threads=threads).run_all
    candidates.update(native_candidates(net, threads))
    candidates = {k: v for k, v in candidates.items() if wanted(k) or k == "reference"}
    table = evaluations_per_s(candidates, args.batches, args.repeats)
    speedup = {
        name: {b: round(v / table["reference"][b], 2) for b, v in row.items()}
        for name, row in table.items()
        if name != "reference"
    }

    # mHC at its cost: the same net with and without it.
    mhc_nets = {m: PopucomNet(preset(net.config.preset, mhc=m, attn_res=False)).eval() for m in (False, True)}

    def timed(m, plain):
        net = mhc_nets[m]

        def run(x):
            with torch.inference_mode():
                return eager_reference(net, torch.from_numpy(x)) if plain else net(torch.from_numpy(x))

        return run

    mhc = evaluations_per_s(
        {
            f"{'ref_' if plain else ''}{'mhc' if m else 'no_mhc'}": timed(m, plain)
            for m in (False, True)
            for plain in (False, True)
        },
        [32],
        args.repeats,
    )
    print(
        json.dumps(
            {
                "benchmark": "inference",
                "preset": net.config.preset,
                "model": str(args.model) if args.model else None,
                "parameters": net.num_parameters(),
                "threads": threads,
                "repeats": args.repeats,
                "evals_per_s": table,
                "speedup_vs_reference": speedup,
                "bf16_hardware": cpu_has_bf16(),
                "cpu_level": _core.cpu_level(),
                "torch_compile_seconds": compile_seconds,
                "onnx_int8_max_policy_logit_error": int8_error,
                "mhc_cost_batch32": {
                    "optimised": round(mhc["no_mhc"]["32"] / mhc["mhc"]["32"], 2),
                    "reference": round(mhc["ref_no_mhc"]["32"] / mhc["ref_mhc"]["32"], 2),
                },
                "machine": machine_info(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
