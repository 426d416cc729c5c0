"""The fused C++ mHC inference kernels (csrc/nn/hyper_connection) against the torch maths."""

import numpy as np
import pytest
import torch

from popucom import _core
from popucom.data.positions import random_features
from popucom.nn import PopucomNet, preset
from popucom.nn.layers import HyperConnection, fused_kernels_apply


def perturbed_mhc_net(seed: int) -> PopucomNet:
    torch.manual_seed(seed)
    net = PopucomNet(preset("tiny", mhc=True)).eval()
    with torch.no_grad():  # away from the initialisation, where the maps are nearly constant
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return net


@pytest.mark.parametrize("seed", [0, 1])
def test_network_outputs_match_the_torch_path(seed: int) -> None:
    net = perturbed_mhc_net(seed)
    x = torch.from_numpy(random_features(7, seed=seed, komi_range=5))
    with torch.inference_mode():
        fused = net(x)
    with torch.enable_grad():  # the training path: plain torch, no kernels
        reference = net(x)
    assert fused.keys() == reference.keys()
    for head in fused:
        torch.testing.assert_close(fused[head], reference[head].detach(), rtol=1e-4, atol=1e-4)


def test_one_hyper_connection_matches_including_sinkhorn() -> None:
    torch.manual_seed(3)
    hc = HyperConnection(d_model=16, streams=4, layer_index=1, sinkhorn_iters=10)
    with torch.no_grad():
        for p in hc.parameters():
            p.add_(0.5 * torch.randn_like(p))
    branch = torch.nn.Linear(16, 16)
    streams = torch.randn(3, 81, 4, 16)
    with torch.inference_mode():
        assert fused_kernels_apply(streams, 4)
        fused = hc(streams, branch)[0]
    with torch.enable_grad():
        reference = hc(streams, branch)[0].detach()
    torch.testing.assert_close(fused, reference, rtol=1e-5, atol=1e-5)


def test_kernels_reject_bad_buffers() -> None:
    n, d, tokens = 4, 8, 5
    maps = np.zeros((2 * n + n * n, tokens), np.float32)
    streams = np.zeros((tokens, n, d), np.float32)
    with pytest.raises(TypeError, match="streams must have dtype float32"):
        _core.mhc_read(maps, streams.astype(np.float64), np.zeros((tokens, d), np.float32))
    with pytest.raises(ValueError, match="maps must have shape"):
        _core.mhc_read(maps[:-1], streams, np.zeros((tokens, d), np.float32))
    with pytest.raises(ValueError, match="read must have shape"):
        _core.mhc_read(maps, streams, np.zeros((tokens, d + 1), np.float32))
    with pytest.raises(ValueError, match="number of streams"):
        too_many = _core.MHC_MAX_STREAMS + 1
        _core.mhc_read(
            np.zeros((2 * too_many + too_many**2, tokens), np.float32),
            np.zeros((tokens, too_many, d), np.float32),
            np.zeros((tokens, d), np.float32),
        )
    with pytest.raises(ValueError, match="sinkhorn_iters"):
        _core.mhc_write(maps, streams, np.zeros((tokens, d), np.float32), -1, np.zeros_like(streams))
    readonly = np.zeros((tokens, n, d), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="mixed must be writable"):
        _core.mhc_write(maps, streams, np.zeros((tokens, d), np.float32), 10, readonly)


def test_write_mixes_with_a_doubly_stochastic_map() -> None:
    """Zero branch output: rows of the map sum to one (equal streams come back unchanged) and
    columns too (the streams' sum is preserved)."""
    n, d, tokens = 4, 8, 6
    rng = np.random.default_rng(0)
    maps = rng.normal(size=(2 * n + n * n, tokens)).astype(np.float32)
    row = rng.normal(size=d).astype(np.float32)
    streams = np.broadcast_to(row, (tokens, n, d)).copy()
    mixed = np.empty_like(streams)
    _core.mhc_write(maps, streams, np.zeros((tokens, d), np.float32), 30, mixed)
    np.testing.assert_allclose(mixed, streams, rtol=1e-4, atol=1e-5)
    streams = rng.normal(size=(tokens, n, d)).astype(np.float32)
    _core.mhc_write(maps, streams, np.zeros((tokens, d), np.float32), 30, mixed)
    np.testing.assert_allclose(mixed.sum(1), streams.sum(1), rtol=1e-4, atol=1e-4)


def test_write_returns_each_tokens_sum_of_squares_for_the_next_norm() -> None:
    n, d, tokens = 4, 8, 37  # a full Sinkhorn block of 32 tokens and a partial one
    rng = np.random.default_rng(1)
    maps = rng.normal(size=(2 * n + n * n, tokens)).astype(np.float32)
    streams = rng.normal(size=(tokens, n, d)).astype(np.float32)
    out = rng.normal(size=(tokens, d)).astype(np.float32)
    mixed, squares = np.empty_like(streams), np.full(tokens, np.nan, np.float32)
    _core.mhc_write(maps, streams, out, 10, mixed, squares)
    np.testing.assert_allclose(squares, (mixed.astype(np.float64) ** 2).sum(axis=(1, 2)), rtol=1e-5)
    with pytest.raises(ValueError, match="sum_squares must have shape"):
        _core.mhc_write(maps, streams, out, 10, mixed, np.zeros(tokens + 1, np.float32))
    with pytest.raises(TypeError, match="sum_squares must be a numpy array"):
        _core.mhc_write(maps, streams, out, 10, mixed, [0.0] * tokens)


def test_the_carried_sums_give_the_same_network_as_a_fresh_norm() -> None:
    """The trunk hands each write's sums to the next sub-layer's norm; recomputing the
    norm from the streams at every sub-layer must give the same outputs."""
    net = perturbed_mhc_net(4).eval()
    net.depth = None  # the plain mHC trunk (the attn-res one carries the sums the same way)
    x = torch.from_numpy(random_features(5, seed=4, komi_range=5))
    with torch.inference_mode():
        carried = net(x)
        original = HyperConnection.forward
        try:
            HyperConnection.forward = lambda self, streams, branch, sum_squares=None: original(self, streams, branch)
            fresh = net(x)
        finally:
            HyperConnection.forward = original
    for head in carried:
        torch.testing.assert_close(carried[head], fresh[head], rtol=1e-5, atol=1e-5)
