"""The fused C++ attention-residual kernels (csrc/nn/depth_mix) against the torch maths."""

import numpy as np
import pytest
import torch

from popucom import _core
from popucom.data.positions import random_features
from popucom.nn import PopucomNet, layers, preset
from popucom.nn.layers import DepthMixer, rms_normalize


def test_network_outputs_match_the_torch_mixes(monkeypatch) -> None:
    torch.manual_seed(5)
    net = PopucomNet(preset("small")).eval()
    with torch.no_grad():  # away from the zero pseudo-queries of the initialisation (uniform mixes)
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    x = torch.from_numpy(random_features(6, seed=2, komi_range=5))
    with torch.inference_mode():
        fused = net(x)
        monkeypatch.setattr(layers, "use_depth_kernel", False)
        reference = net(x)
    for head in fused:
        torch.testing.assert_close(fused[head], reference[head], rtol=1e-4, atol=1e-4)


def test_mix_and_score_match_the_torch_formulas() -> None:
    torch.manual_seed(1)
    mixer = DepthMixer(d_model=16, mixes=5)
    with torch.no_grad():
        mixer.queries.normal_(0.0, 1.0)
    sources = torch.randn(4, 3, 81, 16) * 2.0
    with torch.no_grad():
        scores = torch.stack([mixer.score(s) for s in sources])
    with torch.inference_mode():
        assert layers.native_inference(sources) and layers.native_inference(scores)
        fused_scores = torch.empty_like(scores)
        for source, out in zip(sources, fused_scores):
            mixer.score_into(source, out)
        torch.testing.assert_close(fused_scores, scores, rtol=1e-5, atol=1e-5)
        for index in range(5):
            fused = mixer.mix_normalized(index, sources, scores, 1e-6)
            want = rms_normalize(DepthMixer.mix_stacked(index, sources, scores), 1e-6)
            torch.testing.assert_close(fused, want, rtol=1e-5, atol=1e-5)


def test_a_mix_written_in_bf16_is_the_float_mix_rounded() -> None:
    rng = np.random.default_rng(3)
    sources = rng.normal(0, 2, (5, 30, 64)).astype(np.float32)
    scores = rng.normal(0, 3, (5, 30, 6)).astype(np.float32)
    want = np.empty((30, 64), np.float32)
    got = torch.empty(30, 64, dtype=torch.bfloat16)
    _core.depth_mix_normalized(sources, scores, 2, 1e-6, want)
    _core.depth_mix_normalized(sources, scores, 2, 1e-6, layers.numpy_view(got))
    torch.testing.assert_close(got, torch.from_numpy(want).bfloat16(), rtol=0, atol=0)
    with pytest.raises(TypeError, match="out must have dtype float32 or int16"):
        _core.depth_mix_normalized(sources, scores, 2, 1e-6, want.astype(np.float64))


def test_kernels_reject_bad_buffers() -> None:
    count, tokens, d, mixes = 3, 10, 8, 4
    sources = np.zeros((count, tokens, d), np.float32)
    scores = np.zeros((count, tokens, mixes), np.float32)
    out = np.zeros((tokens, d), np.float32)
    with pytest.raises(TypeError, match="sources must have dtype float32"):
        _core.depth_mix_normalized(sources.astype(np.float64), scores, 0, 1e-6, out)
    with pytest.raises(ValueError, match="scores must have shape"):
        _core.depth_mix_normalized(sources, scores[:2], 0, 1e-6, out)
    with pytest.raises(ValueError, match="index 4 is not one of the 4 mixes"):
        _core.depth_mix_normalized(sources, scores, 4, 1e-6, out)
    with pytest.raises(ValueError, match="number of sources must be 1"):
        _core.depth_mix_normalized(sources[:0], scores[:0], 0, 1e-6, out)
    with pytest.raises(ValueError, match="out must have shape"):
        _core.depth_mix_normalized(sources, scores, 0, 1e-6, out[:-1])
    with pytest.raises(ValueError, match="queries must have shape"):
        _core.depth_score(sources[0], np.zeros((mixes, d + 1), np.float32), 1e-6, np.zeros((tokens, mixes), np.float32))
    with pytest.raises(ValueError, match="scores must have shape"):
        _core.depth_score(sources[0], np.zeros((mixes, d), np.float32), 1e-6, np.zeros((tokens, mixes + 1), np.float32))
