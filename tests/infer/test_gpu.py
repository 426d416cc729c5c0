"""GPU paths: torch on CUDA and TensorRT. Skipped, with the reason, on machines without a GPU."""

import numpy as np
import pytest
import torch

import popucom
from popucom.data.positions import random_features
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU on this machine")


def batch(n: int) -> np.ndarray:
    return random_features(n, seed=0, max_plies=40)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    torch.manual_seed(0)
    net = PopucomNet(preset("small")).eval()
    return net, export_onnx(net, tmp_path_factory.mktemp("gpu") / "small.onnx")


@needs_cuda
def test_torch_cuda_matches_cpu(model) -> None:
    from popucom.infer.torch_backend import TorchEvaluator

    net, _ = model
    x = batch(64)
    cpu = TorchEvaluator(net, device="cpu")(x)
    gpu = TorchEvaluator(net, device="cuda")(x)
    for a, b in zip(cpu, gpu):
        assert np.abs(a - b).max() < 1e-3


@needs_cuda
def test_tensorrt_matches_onnxruntime_and_caches_engines(model, tmp_path) -> None:
    pytest.importorskip("tensorrt", reason="the [trt] extra is not installed")
    from popucom.infer.onnx_backend import OnnxEvaluator
    from popucom.infer.trt_backend import TensorRTEvaluator

    _, path = model
    x = batch(64)
    reference = OnnxEvaluator(path)(x)
    trt = TensorRTEvaluator(path, tmp_path / "engines", max_batch=256)
    got = trt(x)
    assert np.abs(reference.wdl - got.wdl).max() < 2e-2  # fp16 engine
    legal = x[:, [n for n, _ in popucom.FEATURE_PLANES].index("legal_moves")].reshape(64, 81) > 0.5
    assert np.abs(reference.policy_logits[legal] - got.policy_logits[legal]).max() < 5e-2
    plans = list((tmp_path / "engines").glob("*.plan"))
    assert len(plans) == 1
    TensorRTEvaluator(path, tmp_path / "engines", max_batch=256)  # found in the cache, not rebuilt
    assert list((tmp_path / "engines").glob("*.plan")) == plans
    with pytest.raises(ValueError, match="exceeds"):
        trt(batch(257))


def test_gpu_backends_fail_loudly_without_a_gpu() -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    from popucom.infer.torch_backend import TorchEvaluator
    from popucom.infer.trt_backend import TensorRTEvaluator
    from popucom.weights import newest_model

    # Both refuse before they look at the network: a tiny one and the shipped model will do.
    net, path = PopucomNet(preset("tiny")).eval(), newest_model()
    assert path is not None
    with pytest.raises(RuntimeError, match="CUDA"):
        TorchEvaluator(net, device="cuda")
    with pytest.raises(RuntimeError, match="TensorRT backend needs"):
        TensorRTEvaluator(path, "engines")
