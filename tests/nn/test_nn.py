"""The network: presets, PoPE, mHC, attention residuals, heads, ONNX export and loading."""

import math
import re

import pytest
import torch

import popucom
from popucom.data.positions import random_features
from popucom.nn import PopucomNet, preset
from popucom.nn.layers import PoPEAttention, sinkhorn
from popucom.nn.model import LEGAL_PLANE


def features(batch: int = 4, seed: int = 0) -> torch.Tensor:
    return torch.from_numpy(random_features(batch, seed, max_plies=30))


def test_presets() -> None:
    assert PopucomNet(preset("tiny")).num_parameters() < 100_000
    small = PopucomNet(preset("small")).num_parameters()
    assert small * 4 < 5 * 2**20  # fp32 ONNX under 5 MB
    base = PopucomNet(preset("base")).num_parameters()
    assert 1.5e6 < base < 4e6  # comparable to the reference's ~2.3M
    with pytest.raises(ValueError, match="unknown model preset"):
        preset("huge")


@pytest.mark.parametrize("attn_res, mhc", [(False, False), (True, False), (False, True), (True, True)])
def test_outputs_and_masking(attn_res: bool, mhc: bool) -> None:
    net = PopucomNet(preset("tiny", attn_res=attn_res, mhc=mhc)).eval()
    x = features(6)
    out = net(x)
    assert out["policy_logits"].shape == (6, 81) and out["wdl_logits"].shape == (6, 3)
    assert out["score"].shape == (6,) and out["ownership"].shape == (6, 81)
    illegal = x[:, LEGAL_PLANE].flatten(1) < 0.5
    assert (out["policy_logits"][illegal] <= -1e3).all()
    assert (out["policy_logits"][~illegal] > -1e3).all()
    assert out["ownership"].abs().max() <= 1
    assert torch.isfinite(out["score"]).all()


def test_pope_tells_left_from_right_at_init() -> None:
    torch.manual_seed(0)
    attention = PoPEAttention(d_model=16, heads=2, theta_max=math.pi / 2, theta_min=2 * math.pi / 36)
    logits = attention.logits(torch.ones(1, 81, 16))  # identical content everywhere: only position matters
    centre = popucom.parse_square("e5")
    for a, b in [("d5", "f5"), ("e4", "e6")]:
        assert not torch.allclose(
            logits[0, :, centre, popucom.parse_square(a)], logits[0, :, centre, popucom.parse_square(b)], atol=1e-4
        )
    # Without the phase bias the score is even in the offset: left and right look alike.
    with torch.no_grad():
        attention.delta.zero_()
    logits = attention.logits(torch.ones(1, 81, 16))
    assert torch.allclose(logits[0, :, centre, centre - 1], logits[0, :, centre, centre + 1], atol=1e-5)


def test_sinkhorn_is_doubly_stochastic() -> None:
    m = sinkhorn(torch.randn(5, 4, 4) * 3, iters=20)
    assert torch.allclose(m.sum(-1), torch.ones(5, 4), atol=1e-5)
    assert torch.allclose(m.sum(-2), torch.ones(5, 4), atol=1e-3)


def test_attention_residuals_start_uniform() -> None:
    net = PopucomNet(preset("tiny", attn_res=True))
    assert torch.count_nonzero(net.depth.queries) == 0
    sources = [torch.randn(2, 81, 32) for _ in range(3)]
    scores = [net.depth.score(s) for s in sources]
    mixed = net.depth.mix(0, sources, scores)
    assert torch.allclose(mixed, sum(sources) / 3, atol=1e-6)


def stream_spread(net: PopucomNet, x: torch.Tensor) -> float:
    """Relative difference between the mHC streams at the end of the trunk."""
    captured = {}
    last = net.hyper[-1]
    hook = last.register_forward_hook(lambda m, i, out: captured.update(streams=out[0]))  # None: output kept
    net(x)
    hook.remove()
    s = captured["streams"]
    return float(((s - s.mean(2, keepdim=True)).norm() / s.norm()).detach())


def test_mhc_streams_diverge_with_training() -> None:
    torch.manual_seed(0)
    net = PopucomNet(preset("tiny", mhc=True, attn_res=False))
    x = features(16)
    target = torch.randint(0, 3, (16,))
    optimizer = torch.optim.AdamW(net.parameters(), lr=3e-3)
    for _ in range(5):
        loss = torch.nn.functional.cross_entropy(net(x)["wdl_logits"], target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert stream_spread(net, x) > 0.01  # the reference's streams stay identical (~1e-15)


def test_muon_takes_only_hidden_matrices() -> None:
    net = PopucomNet(preset("tiny"))
    muon = net.muon_parameters()
    assert muon and all(p.ndim == 2 for p in muon)
    ids = {id(p) for p in muon}
    assert id(net.embed.weight) not in ids and id(net.token_head.weight) not in ids
    assert all(id(p) not in ids for p in net.value_head.parameters())


def perturbed(net: PopucomNet, scale: float = 0.05, seed: int = 0) -> PopucomNet:
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * scale)
    return net.eval()


@pytest.mark.parametrize("attn_res, mhc", [(False, False), (True, False), (False, True)])
def test_network_sees_absolute_position(attn_res: bool, mhc: bool) -> None:
    """On the empty board every input plane is the same on every cell and PoPE is relative:
    without absolute positions all 81 policy logits are equal for any weights."""
    x = torch.from_numpy(popucom.encode_position(popucom.Position()))[None]
    with torch.no_grad():
        with_positions = perturbed(PopucomNet(preset("tiny", attn_res=attn_res, mhc=mhc)))(x)["policy_logits"]
        without = perturbed(PopucomNet(preset("tiny", attn_res=attn_res, mhc=mhc, absolute_positions=False)))(x)
    assert float(without["policy_logits"].std()) < 1e-4
    assert float(with_positions.std()) > 1e-2


def test_no_weight_decay_on_phase_bias_and_gains() -> None:
    from popucom.train.trainer import Trainer

    trainer = Trainer(preset("tiny"))
    decay_of = {id(p): group["weight_decay"] for group in trainer.adamw.param_groups for p in group["params"]}
    for name, p in trainer.model.named_parameters():
        if name.endswith(("delta", "cell_embedding", "gamma", "bias")) or p.ndim < 2:
            assert decay_of.get(id(p), 0.0) == 0.0, name
    assert any(decay > 0 for decay in decay_of.values())


# --- the optimised forward against the plain one -----------------------------------

VARIANTS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("attn_res, mhc", VARIANTS)
def test_optimised_forward_matches_eager_reference(attn_res: bool, mhc: bool) -> None:
    """Folded gains, cached PoPE tables, SDPA, in-place mixing and the reordered mHC norm
    change only rounding: 1e-4 on every output of a random-weight small net (fp32 rounding
    of the reordered sums is ~1e-6; 1e-4 leaves room for other BLAS paths)."""
    from popucom.nn.reference import eager_reference

    torch.manual_seed(0)
    net = perturbed(PopucomNet(preset("small", attn_res=attn_res, mhc=mhc)), scale=0.1)
    x = torch.from_numpy(random_features(40, seed=3, komi_range=5))
    with torch.no_grad():
        expected = eager_reference(net, x)
        for grad in (False, True):  # the cached inference path and the training path
            with torch.set_grad_enabled(grad):
                got = net(x)
            for key, value in expected.items():
                assert torch.allclose(got[key], value, atol=1e-4, rtol=1e-4), (key, grad)
        # Inference in chunks (the torch evaluator) is the same computation.
        from popucom.infer.torch_backend import TorchEvaluator

        policy = TorchEvaluator(net, chunk=16).run_all(x.numpy())["policy_logits"]
    assert float((torch.from_numpy(policy) - expected["policy_logits"]).abs().max()) < 1e-4


def test_inference_cache_follows_weight_updates() -> None:
    net = perturbed(PopucomNet(preset("tiny")))
    x = features(3)
    with torch.inference_mode():
        before = net(x)["policy_logits"].clone()
    with torch.no_grad():
        for f in net.sublayers:
            f.gamma.mul_(2.0)
            f.inner.delta.add_(0.5) if hasattr(f.inner, "delta") else None
    with torch.inference_mode():
        after = net(x)["policy_logits"]
    from popucom.nn.reference import eager_reference

    with torch.no_grad():
        expected = eager_reference(net, x)["policy_logits"]
    assert not torch.allclose(before, after)
    assert torch.allclose(after, expected, atol=1e-4)


def test_a_network_built_under_inference_mode_runs() -> None:
    # Its parameters are inference tensors, which have no version counter for the cache key.
    x = features(2)
    with torch.inference_mode():
        net = PopucomNet(preset("tiny")).eval()
        first = net(x)["policy_logits"].clone()
        torch.testing.assert_close(net(x)["policy_logits"], first)


def test_sdpa_gradients_match_eager_reference() -> None:
    from popucom.nn.reference import eager_reference

    torch.manual_seed(0)
    net = perturbed(PopucomNet(preset("tiny")))
    x = features(8)
    grads = []
    for forward in (net, lambda x: eager_reference(net, x)):
        net.zero_grad()
        out = forward(x)
        (out["policy_logits"].logsumexp(-1).sum() + out["wdl_logits"].square().sum()).backward()
        grads.append({n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None})
    assert grads[0].keys() == grads[1].keys() and len(grads[0]) > 10
    for name in grads[0]:
        assert torch.allclose(grads[0][name], grads[1][name], atol=1e-4, rtol=1e-3), name


def test_thread_budgets_are_applied(tmp_path) -> None:
    from popucom.infer.onnx_backend import OnnxEvaluator
    from popucom.infer.threads import set_torch_threads
    from popucom.infer.torch_backend import TorchEvaluator
    from popucom.nn.export import export_onnx

    previous = torch.get_num_threads()
    try:
        net = PopucomNet(preset("tiny")).eval()
        evaluator = TorchEvaluator(net, threads=1)
        # Whichever path serves this CPU (the native forward or torch), it names its one thread.
        assert torch.get_num_threads() == 1 and re.search(r"\b1 thread\b", evaluator.describe())
        assert set_torch_threads(2) == 2 and torch.get_num_threads() == 2
        onnx = OnnxEvaluator(export_onnx(net, tmp_path / "m.onnx"), threads=2)
        assert onnx.threads == 2 and "2 threads" in onnx.describe()
    finally:
        torch.set_num_threads(previous)


# --- the named outputs (popucom/nn/outputs.py) --------------------------------------------------


def test_forward_returns_the_named_heads() -> None:
    """Model, conv baseline and eager reference return exactly the heads of the spec, in order,
    with the spec's per-position shapes (the optional value-error head where the config has
    it: the presets do, the conv baseline never); the export wrapper returns the deployed outputs."""
    from popucom.nn.conv_baseline import ConvResNet
    from popucom.nn.model import ExportWrapper
    from popucom.nn.outputs import HEAD_NAMES, HEADS, OUTPUTS
    from popucom.nn.reference import eager_reference

    net = PopucomNet(preset("tiny")).eval()
    plain = PopucomNet(preset("tiny", value_error_head=False)).eval()
    without = tuple(h.name for h in HEADS if not h.optional)
    x = features(5)
    with torch.no_grad():
        runs = [(net(x), HEAD_NAMES), (eager_reference(net, x), HEAD_NAMES), (plain(x), without)]
        runs.append((ConvResNet(preset("tiny"), 8, 1).eval()(x), without))
        for out, names in runs:
            assert tuple(out) == names
            for head in HEADS:
                if head.name in names:
                    assert out[head.name].shape == (5, *head.shape), head.name
        assert (net(x)["value_error"] >= 0).all()
        deployed = ExportWrapper(net)(x)
        assert len(ExportWrapper(plain)(x)) == len(OUTPUTS) - 1
    assert len(deployed) == len(OUTPUTS)
    for output, tensor in zip(OUTPUTS, deployed):
        assert tensor.shape == (5, *output.shape), output.name
    assert torch.allclose(deployed[[o.name for o in OUTPUTS].index("wdl")].sum(-1), torch.ones(5))


def test_shipped_model_loads_with_the_named_outputs() -> None:
    """weights/popucom-small-v1: the ONNX model's output names are the spec's (without the
    value error: it predates that head), and the ONNX model and its checkpoint give the same
    outputs, compared by name; the evaluators hand the search no value error."""
    from pathlib import Path

    import numpy as np

    from popucom.infer.onnx_backend import OnnxEvaluator
    from popucom.infer.torch_backend import TorchEvaluator
    from popucom.nn.checkpoint import load_network
    from popucom.nn.outputs import OPTIONAL_OUTPUT_NAMES
    from popucom.nn.outputs import OUTPUT_NAMES as ALL_NAMES

    OUTPUT_NAMES = tuple(n for n in ALL_NAMES if n not in OPTIONAL_OUTPUT_NAMES)

    weights = Path(__file__).resolve().parents[2] / "weights"
    onnx = OnnxEvaluator(weights / "popucom-small-v1.onnx")
    assert [o.name for o in onnx.session.get_outputs()] == list(OUTPUT_NAMES)
    torch_eval = TorchEvaluator(load_network(weights / "popucom-small-v1.pt"), threads=1)
    x = random_features(16, seed=7, komi_range=5)
    got, expected = onnx.run_all(x), torch_eval.run_all(x)
    assert tuple(got) == tuple(expected) == OUTPUT_NAMES
    for name in OUTPUT_NAMES:
        assert np.abs(got[name] - expected[name]).max() < 1e-3, name
    for a, b, name in zip(onnx(x), torch_eval(x), ("policy_logits", "wdl", "score")):
        np.testing.assert_array_equal(a, got[name])
        assert np.abs(a - b).max() < 1e-3
    assert onnx(x).value_error is None and torch_eval(x).value_error is None
