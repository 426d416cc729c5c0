"""The exported model with each Softplus as the operator against the form the export writes
(nn/export.expand_softplus), in ONNX Runtime and OpenVINO: network evaluations/s at each batch and
the largest output difference between the two forms: ONE JSON line.

    python bench/softplus.py --model weights/popucom-small-v12.pt [--rounds 25] [--batches 1 16 64]

One export gives both graphs: its template keeps the traced Softplus operators, the written model
has them expanded. Each runtime gets one thread (the backends' session settings); the two forms
alternate in a shuffled order within every round, so that load from other processes hits both
alike, and the medians over rounds are reported, with the median of the per-round ratios.
"""

import popucom  # noqa: F401  first: it sets OpenMP's wait policy before torch loads (popucom/cpu_load.py)

# isort: split

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from popucom.benchmarks import machine_info
from popucom.data.positions import random_features
from popucom.infer.openvino_backend import compile_settings
from popucom.infer.threads import onnx_session_options
from popucom.nn.checkpoint import load_network
from popucom.nn.export import INPUT_NAME, export_onnx

FORMS = ("softplus", "expanded")
CALLS = {1: 40, 16: 6, 64: 2}  # a block of calls per timing, each block some tenths of a second


def sessions(paths: dict[str, Path]) -> dict[str, dict]:
    """For each runtime, each form's call on a batch of features."""
    import onnxruntime as ort

    runtimes = {"onnxruntime": {}}
    for form, path in paths.items():
        session = ort.InferenceSession(
            str(path), sess_options=onnx_session_options(1), providers=["CPUExecutionProvider"]
        )
        runtimes["onnxruntime"][form] = lambda x, s=session: s.run(None, {INPUT_NAME: x})
    try:
        import openvino
    except ImportError:
        return runtimes
    core = openvino.Core()
    runtimes["openvino"] = {}
    for form, path in paths.items():
        compiled = core.compile_model(core.read_model(str(path)), "CPU", compile_settings(1))
        runtimes["openvino"][form] = lambda x, c=compiled: [np.asarray(v) for v in c({INPUT_NAME: x}).values()]
    return runtimes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a checkpoint (.pt) to export")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64])
    args = parser.parse_args()
    net = load_network(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"softplus": Path(tmp) / "template.onnx", "expanded": Path(tmp) / "model.onnx"}
        export_onnx(net, paths["expanded"], template=paths["softplus"])
        runtimes = sessions(paths)
    features = {b: random_features(b, seed=7, komi_range=5) for b in args.batches}
    check = random_features(256, seed=3, komi_range=5)
    result = {"benchmark": "softplus", "model": args.model, "rounds": args.rounds, "machine": machine_info()}
    rng = random.Random(0)
    for runtime, calls in runtimes.items():
        outputs = [calls[form](check) for form in FORMS]
        difference = max(float(np.abs(a - b).max()) for a, b in zip(*outputs, strict=True))
        rates = {(form, b): [] for form in FORMS for b in args.batches}
        for form in FORMS:  # warm-up: each session prepares every shape once
            for b in args.batches:
                calls[form](features[b])
        for _ in range(args.rounds):
            for b in args.batches:
                for form in rng.sample(FORMS, len(FORMS)):
                    n = CALLS.get(b, 1)
                    start = time.perf_counter()
                    for _ in range(n):
                        calls[form](features[b])
                    rates[(form, b)].append(n * b / (time.perf_counter() - start))
        result[runtime] = {
            "max_abs_difference": difference,
            "evals_per_s": {
                str(b): {form: round(statistics.median(rates[(form, b)]), 1) for form in FORMS} for b in args.batches
            },
            "ratio": {
                str(b): round(
                    statistics.median(e / s for s, e in zip(rates[("softplus", b)], rates[("expanded", b)])), 3
                )
                for b in args.batches
            },
        }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
