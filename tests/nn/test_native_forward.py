"""The native forward (popucom.nn.native, csrc/nn/native_net.h) against the torch network."""

import copy
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from popucom import _core
from popucom.data.positions import random_features
from popucom.infer.native_backend import NativeEvaluator
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn import PopucomNet, preset
from popucom.nn.model import LEGAL_PLANE, MASKED_LOGIT, ExportWrapper
from popucom.nn.native import NativeForward, native_forward_refusal, native_spec

needs_native = pytest.mark.skipif(
    not _core.native_net_supported(16, bf16=True), reason="this CPU or build has no AVX512-BF16 kernels"
)
needs_float_native = pytest.mark.skipif(
    not _core.native_net_supported(16, bf16=False), reason="this build has no kernels for heads of width 16"
)


def perturbed_net(name: str = "small", **overrides: object) -> PopucomNet:
    """A network whose every parameter is off its initial value (zero pseudo-queries, unit
    gains and LayerScales would hide a folding mistake)."""
    torch.manual_seed(4)
    net = PopucomNet(preset(name, **overrides)).eval()
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return net


def reference(net: PopucomNet, x: np.ndarray) -> list[np.ndarray]:
    """The fp32 torch forward (fp32 products and attention)."""
    net = copy.deepcopy(net)
    net.set_inference_matmul_dtype(torch.float32)
    with torch.no_grad():
        return [t.numpy() for t in ExportWrapper(net)(torch.from_numpy(x))]


def probabilities(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@needs_native
@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("small", {}),
        ("tiny", {}),
        ("small", {"absolute_positions": False}),
        ("small", {"value_error_head": False}),
        ("base", {}),
    ],
)
def test_native_forward_matches_the_torch_network_to_bf16_rounding(name: str, overrides: dict) -> None:
    net = perturbed_net(name, **overrides)
    x = random_features(24, seed=5, komi_range=5)
    native = NativeForward(net, threads=1)(x)
    want = reference(net, x)
    assert len(native) == len(want) == 4 + net.config.value_error_head
    torch_bf16 = TorchEvaluator(copy.deepcopy(net), threads=1, cpu_matmul="bf16").run_all(x)
    illegal = x[:, LEGAL_PLANE].reshape(len(x), -1) < 0.5
    assert np.array_equal(native[0] == MASKED_LOGIT, illegal)
    np.testing.assert_allclose(native[1].sum(1), 1.0, atol=1e-5)
    # bf16 operands carry 8 significant bits, so both bf16 paths move the outputs by about
    # 1e-2 (more on the deeper, wider base net); the native one no more than torch's own.
    for got, other, exact in zip(native, torch_bf16.values(), want, strict=True):
        if exact is want[0]:  # policy logits: compare the move probabilities
            got, other, exact = probabilities(got), probabilities(other), probabilities(exact)
        error, torch_error = np.abs(got - exact), np.abs(other - exact)
        assert 1e-7 < error.max() <= 1.5 * torch_error.max() + 1e-4
        assert error.mean() <= 1.25 * torch_error.mean() + 1e-5


@needs_float_native
@pytest.mark.parametrize("name", ["small", "tiny", "base"])
def test_native_forward_in_float32_matches_the_torch_network_to_float_rounding(name: str) -> None:
    net = perturbed_net(name)
    x = random_features(24, seed=5, komi_range=5)
    native = NativeForward(net, threads=2, bf16=False)(x)
    want = reference(net, x)
    # Sums in another order: differences of float rounding (1e-7 to 3e-5 measured, the most on
    # the six layers of width 192 of base), far below bf16's 1e-2.
    np.testing.assert_allclose(probabilities(native[0]), probabilities(want[0]), atol=1e-4)
    np.testing.assert_allclose(native[1], want[1], atol=1e-4)
    np.testing.assert_allclose(native[2], want[2], atol=1e-3)  # floors, up to tens
    np.testing.assert_allclose(native[3], want[3], atol=1e-4)
    np.testing.assert_allclose(native[4], want[4], atol=1e-4)  # the value error


FLOAT_PARITY = """
import sys
import numpy as np
from popucom import _core
sys.path.insert(0, {tests!r})
from test_native_forward import perturbed_net, probabilities, reference
from popucom.data.positions import random_features
from popucom.nn.native import NativeForward
net = perturbed_net("small")
x = random_features(13, seed=8, komi_range=5)
native, want = list(NativeForward(net, threads=2, bf16=False)(x)), list(reference(net, x))
native[0], want[0] = probabilities(native[0]), probabilities(want[0])
print(_core.cpu_level(), max(float(np.abs(a - b).max()) for a, b in zip(native, want)))
"""


@pytest.mark.parametrize("cap", ["baseline", "avx2", "avx512"])
def test_each_instruction_set_copy_of_the_float32_forward_matches_the_torch_network(cap: str) -> None:
    """Every copy this CPU runs, taken by capping the kernels' level (POPUCOM_CPU_ISA) in a
    process of its own (the level is read once)."""
    if _core.CPU_LEVELS.index(_core.detected_cpu_level()) < _core.CPU_LEVELS.index(cap):
        pytest.skip(f"this CPU or build runs no {cap} kernels")
    code = FLOAT_PARITY.format(tests=str(Path(__file__).parent))
    env = {**os.environ, _core.CPU_ISA_ENV: cap}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    level, error = done.stdout.split()
    assert level == cap
    assert float(error) < 1e-3  # float rounding of sums in another order; floors reach tens


@needs_native
@pytest.mark.parametrize("bf16", [True, False])
def test_every_position_is_evaluated_alone_whatever_the_pieces_and_threads(bf16: bool) -> None:
    net = perturbed_net()
    x = random_features(19, seed=6, komi_range=5)
    whole = NativeForward(net, threads=2, piece_positions=4, bf16=bf16)(x)
    for i in (0, 7, 18):
        alone = NativeForward(net, threads=1, bf16=bf16)(x[i : i + 1])
        for got, want in zip(whole, alone, strict=True):
            assert np.array_equal(got[i : i + 1], want)  # bit for bit: no position sees another
    assert all(len(o) == 0 for o in NativeForward(net)(x[:0]))


@needs_native
def test_a_changed_parameter_is_repacked_before_the_next_call() -> None:
    net = perturbed_net()
    forward = NativeForward(net)
    x = random_features(8, seed=7, komi_range=5)
    before = forward(x)[1]
    with torch.no_grad():
        net.value_head[2].bias.add_(torch.tensor([2.0, 0.0, -2.0]))
    after = forward(x)[1]
    assert np.abs(after - reference(net, x)[1]).max() < 0.05
    assert (after[:, 0] > before[:, 0]).all()


@needs_native
def test_the_native_backend_runs_the_products_precision_and_the_torch_backend_stays_torch() -> None:
    net = perturbed_net()
    x = random_features(12, seed=8, komi_range=5)
    native = NativeEvaluator.of_network(net, threads=2, cpu_matmul="bf16")
    assert native.describe().startswith("native cpu (whole network in C++, bf16 products, 2 threads")
    torch_path = TorchEvaluator(copy.deepcopy(net), threads=1, cpu_matmul="bf16")
    assert torch_path.describe().startswith("torch cpu") and "torch.bfloat16 matrix products" in torch_path.describe()
    assert np.abs(native.run_all(x)["wdl"] - torch_path.run_all(x)["wdl"]).max() < 0.05
    wide = NativeEvaluator.of_network(copy.deepcopy(net), threads=1, cpu_matmul="fp32")
    assert wide.describe().startswith("native cpu (whole network in C++, fp32 products, 1 thread,")
    out = wide(x)
    want = reference(net, x)
    for got, expected in zip(out, [*want[:3], want[4]], strict=True):  # the contract's four, in fp32
        assert np.abs(got - expected).max() < 1e-4


def test_networks_the_native_forward_does_not_serve_are_refused_with_the_reason() -> None:
    mhc = PopucomNet(preset("tiny", mhc=True))
    assert "without mHC" in native_forward_refusal(mhc)
    with pytest.raises(ValueError, match="native forward: it serves the attention-residual network"):
        NativeForward(mhc)
    odd_heads = PopucomNet(preset("small", d_model=96))  # head width 24
    assert "heads of width 24" in native_forward_refusal(odd_heads)
    assert "heads of width 24" in native_forward_refusal(odd_heads, bf16=False)


@needs_native
def test_bad_specs_and_inputs_get_errors_that_name_the_problem() -> None:
    net = perturbed_net("tiny")
    spec = native_spec(net)
    with pytest.raises(ValueError, match="depth_queries has 96 values, want 160"):
        _core.NativeNet({**spec, "depth_queries": spec["depth_queries"][:3]})
    with pytest.raises(KeyError, match="the spec has no 'token_bias'"):
        _core.NativeNet({k: v for k, v in spec.items() if k != "token_bias"})
    with pytest.raises(ValueError, match="threads must be at least 1"):
        _core.NativeNet(spec, threads=0)
    packed = _core.NativeNet(spec)
    with pytest.raises(ValueError, match=r"features must have shape \(N, 12, 81\), got \(2, 11, 81\)"):
        packed.forward(np.zeros((2, 11, 81), np.float32), 12)
    with pytest.raises(TypeError, match="features must have dtype float32"):
        packed.forward(np.zeros((2, 12, 81)), 12)
