"""A deeper copy of a trained network that computes the same function (Net2DeeperNet).

The new (attention, MLP) pairs go after the old ones with their last projection (attention
output, MLP down) at zero, so each adds nothing to the residual: the plain trunk's sum is
unchanged, and with attention residuals the old sub-layers' mixes see only the old sources
while the final mix gains zero sources, which take softmax weight from the others by one
common factor that the final RMS norm removes. Their LayerScale gains are the last old
layer's, so the zero projection gets a full gradient from the first step and the layer's
other weights follow as soon as it is not zero. (Zero gains instead, the first version,
left the new layers idle: a zero gain zeroes the gradient of every weight behind it, and
after 1,100 steps at the floor rate the gains were still 0.004; docs/learning.md.) A
network that only gets deeper this way starts its new run as strong as the old one, where
one trained afresh on the old run's games starts far behind (docs/learning.md).

mHC streams are not covered: a new hyper-connection's maps would mix the streams.
"""

from __future__ import annotations

import dataclasses

from .layers import PoPEAttention
from .model import PopucomNet


def deepened(net: PopucomNet, layers: int) -> PopucomNet:
    """A copy of `net` with `layers` layers (>= its own) and the same outputs."""
    config = net.config
    if config.mhc:
        raise ValueError("deepening keeps a network's function only without mHC streams (mhc=False)")
    if layers < config.layers:
        raise ValueError(f"--layers {layers}: a deepened network keeps the {config.layers} it has")
    deeper = PopucomNet(dataclasses.replace(config, layers=layers))
    state = deeper.state_dict()
    old_sublayers = len(net.sublayers)
    for name, value in net.state_dict().items():
        if name == "depth.queries":  # one query per sub-layer's mix, then the final mix's
            queries = state[name].clone()
            queries[:old_sublayers] = value[:old_sublayers]
            queries[-1] = value[-1]
            state[name] = queries
        else:
            state[name] = value
    for i in range(old_sublayers, len(deeper.sublayers)):
        twin = old_sublayers - 2 + i % 2  # the last old sub-layer of the same kind (they alternate)
        state[f"sublayers.{i}.gamma"] = state[f"sublayers.{twin}.gamma"].clone()
        last = "out" if isinstance(deeper.sublayers[i].inner, PoPEAttention) else "down"
        state[f"sublayers.{i}.inner.{last}.weight"].zero_()
    deeper.load_state_dict(state)
    return deeper.train(net.training)
