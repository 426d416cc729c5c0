"""A trained network gaining the value-error head: the same network with the head added at its
fresh initialisation, every other output unchanged (the head reads the pooled trunk and feeds
nothing back). A run continued from a network trained before the head existed (a shipped one
under `--resume-from`) starts as strong as it was, and its head learns from the first games.
"""

from __future__ import annotations

import dataclasses

from .model import PopucomNet


def with_value_error_head(net: PopucomNet, seed: int = 0) -> PopucomNet:
    """A copy of `net` with the value-error head (a network that has one is copied as is)."""
    import torch

    config = dataclasses.replace(net.config, value_error_head=True)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        grown = PopucomNet(config)
    state = grown.state_dict()
    state.update(net.state_dict())
    grown.load_state_dict(state)
    return grown.train(net.training)


def head_parameters(net: PopucomNet) -> list:
    """The value-error head's parameters (what a head-only fit trains)."""
    if net.value_error_head is None:
        raise ValueError("the network has no value-error head")
    return list(net.value_error_head.parameters())
