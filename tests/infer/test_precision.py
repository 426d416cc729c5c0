"""CPU matrix-product precision (popucom.infer.precision): the choice, and bf16 against fp32."""

import copy

import numpy as np
import pytest
import torch

from popucom import _core
from popucom.data.positions import random_features
from popucom.infer import precision
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn import PopucomNet, layers, preset


def test_the_choice_follows_the_argument_then_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(precision.ENV, raising=False)
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert precision.cpu_matmul_dtype() == torch.bfloat16  # the default, auto
    monkeypatch.setenv(precision.ENV, "fp32")
    assert precision.cpu_matmul_dtype() == torch.float32
    monkeypatch.setenv(precision.ENV, "bf16")
    assert precision.cpu_matmul_dtype() == torch.bfloat16
    assert precision.cpu_matmul_dtype("fp32") == torch.float32  # an explicit choice wins
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    assert precision.cpu_matmul_dtype("auto") == torch.float32
    monkeypatch.delenv(precision.ENV)
    assert precision.cpu_matmul_dtype() == torch.float32  # auto, without the instructions
    monkeypatch.setenv(precision.ENV, "bf16")
    with pytest.raises(ValueError, match="POPUCOM_CPU_MATMUL=bf16: this CPU has no bf16 arithmetic"):
        precision.cpu_matmul_dtype()
    with pytest.raises(ValueError, match="unknown CPU matmul precision 'fp8'"):
        precision.cpu_matmul_dtype("fp8")


def perturbed_small_net(**overrides: object) -> PopucomNet:
    torch.manual_seed(4)
    net = PopucomNet(preset("small", **overrides)).eval()
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return net


@pytest.mark.skipif(not precision.cpu_has_bf16(), reason="the CPU has no bf16 arithmetic")
def test_bf16_products_stay_close_to_fp32_and_leave_training_alone() -> None:
    net = perturbed_small_net()
    x = random_features(40, seed=5, komi_range=5)
    fp32 = TorchEvaluator(net, threads=1, cpu_matmul="fp32").run_all(x)
    bf16_net = copy.deepcopy(net)
    bf16 = TorchEvaluator(bf16_net, threads=1, cpu_matmul="bf16")  # the torch path
    assert "torch.bfloat16 matrix products" in bf16.describe()
    got = bf16.run_all(x)
    # bf16 operands carry 8 significant bits: outputs move by about 1e-2, not 1e-5 (fp32) nor 1.
    assert 1e-5 < np.abs(got["wdl"] - fp32["wdl"]).max() < 0.05
    assert np.abs(got["ownership"] - fp32["ownership"]).max() < 0.1
    # Small batches keep fp32 products (the conversions would cost more than they save).
    small = x[: layers.NARROW_MATMUL_MIN_BATCH - 1]
    np.testing.assert_allclose(bf16.run_all(small)["wdl"], fp32["wdl"][: len(small)], atol=1e-5)
    # The training path (gradients on) ignores the setting: the same numbers as the fp32 net.
    features = torch.from_numpy(x)
    want = net(features)["wdl_logits"]
    torch.testing.assert_close(bf16_net(features)["wdl_logits"], want)


@pytest.mark.skipif(not precision.cpu_has_bf16(), reason="the CPU has no bf16 arithmetic")
def test_bf16_products_work_on_a_head_width_the_attention_kernel_lacks() -> None:
    # 96 wide, 4 heads: head width 24, which csrc/nn/pope_attention does not serve, so the
    # attention falls back to torch with bf16 weights (this raised a dtype error once).
    net = perturbed_small_net(d_model=96)
    assert net.config.d_model // net.config.heads not in _core.POPE_HEAD_DIMS
    x = random_features(16, seed=6, komi_range=5)
    fp32 = TorchEvaluator(net, threads=1, cpu_matmul="fp32").run_all(x)
    got = TorchEvaluator(copy.deepcopy(net), threads=1, cpu_matmul="bf16").run_all(x)
    assert 1e-5 < np.abs(got["wdl"] - fp32["wdl"]).max() < 0.05
