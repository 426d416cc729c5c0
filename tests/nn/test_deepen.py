"""A deeper copy of a trained network computes the same function (popucom/nn/deepen.py)."""

import pytest
import torch

from popucom.data.positions import random_features
from popucom.nn import PopucomNet, preset
from popucom.nn.deepen import deepened


def perturbed(**overrides: object) -> PopucomNet:
    torch.manual_seed(6)
    net = PopucomNet(preset("tiny", **overrides))
    with torch.no_grad():  # away from the initialisation: every query and gain matters
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return net.eval()


@pytest.mark.parametrize("attn_res", [True, False])
def test_a_deepened_network_has_the_same_outputs(attn_res: bool) -> None:
    net = perturbed(attn_res=attn_res)
    deeper = deepened(net, net.config.layers + 2)
    assert deeper.config.layers == net.config.layers + 2 and not deeper.training
    x = torch.from_numpy(random_features(9, seed=7, komi_range=5))
    for context in (torch.no_grad, torch.inference_mode, torch.enable_grad):  # training and kernel paths
        with context():
            want, got = net(x), deeper(x)
        for head in want:
            # The final mix gains zero sources; its norm gives back the same direction up to rounding.
            torch.testing.assert_close(got[head].detach(), want[head].detach(), rtol=1e-4, atol=2e-4)
    # The new layers learn from the first step: their zero last projections get a gradient.
    deeper.train()
    out = deeper(x)
    (out["policy_logits"].logsumexp(-1).sum() + out["wdl_logits"].square().sum()).backward()
    attention, mlp = deeper.sublayers[-2:]
    assert float(attention.inner.out.weight.grad.abs().sum()) > 0
    assert float(mlp.inner.down.weight.grad.abs().sum()) > 0
    assert torch.equal(mlp.gamma, net.sublayers[-1].gamma)


def test_deepening_refuses_mhc_and_fewer_layers() -> None:
    with pytest.raises(ValueError, match="without mHC streams"):
        deepened(perturbed(mhc=True), 3)
    with pytest.raises(ValueError, match="keeps the 2 it has"):
        deepened(perturbed(), 1)
