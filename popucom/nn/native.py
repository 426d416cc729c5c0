"""The native forward of a PopucomNet (csrc/nn/native_net.h): the whole network in one C++
call for CPU inference, with bf16 products where the CPU has AVX512-BF16 or float32 ones on any
CPU (the kernels are built for each instruction set, csrc/nn/isa_kernels.h).

Through torch, the small network at batch 16 spends about a third of a forward dispatching
its many small operators from Python, and a second thread splits each operator instead
of the batch. The native forward runs pieces of the batch through every layer on
its own threads. Its arithmetic is the torch path's CPU inference (popucom.infer.precision) in
either precision: bf16 operands in the sub-layers' products and the attention's dot products,
or float32 throughout; float32 sums, sources, norms and heads in both, with the same folded
weights. model.py stays the reference.

`native_forward_refusal(net, bf16)` says why a network cannot take it here (None: it can;
`network_refusal(net)`: why on no CPU), and
`NativeForward(net, threads, bf16=...)` evaluates features into the outputs of outputs.OUTPUTS,
repacking the weights when a parameter has changed since the last call.
"""

from __future__ import annotations

import numpy as np
import torch

from .. import _core
from .config import ModelConfig
from .layers import MLP, RMS_EPS, PoPEAttention
from .model import LEGAL_PLANE, MASKED_LOGIT, SCORE_SCALE, PopucomNet

# Positions per piece of a batch (csrc/nn/native_net.h explains the size).
PIECE_POSITIONS = _core.NATIVE_PIECE_POSITIONS


def network_refusal(net: PopucomNet) -> str | None:
    """Why the native forward cannot run `net` on any CPU (its architecture), or None."""
    c = net.config
    if not c.attn_res or c.mhc:
        return "it serves the attention-residual network without mHC"
    return None


def config_refusal(c: ModelConfig, bf16: bool = True) -> str | None:
    """Why the native forward cannot run a network of config `c` on this machine in bf16 (or
    float32) products, or None where it can: asked before a network exists
    (popucom.infer.preflight)."""
    if not c.attn_res or c.mhc:
        return "it serves the attention-residual network without mHC"
    if not _core.native_net_supported(c.d_model // c.heads, bf16):
        kind = "AVX512-BF16 kernels" if bf16 else "kernels"
        return f"this CPU or build has no {kind} for heads of width {c.d_model // c.heads}"
    return None


def native_forward_refusal(net: PopucomNet, bf16: bool = True) -> str | None:
    """Why the native forward cannot run `net` on this machine in bf16 (or float32) products,
    or None where it can."""
    refusal = config_refusal(net.config, bf16)
    if refusal is not None:
        return refusal
    if any(p.device.type != "cpu" for p in net.parameters()):
        return "the network is not on the CPU"
    return None


def _floats(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().contiguous().numpy()


def native_spec(net: PopucomNet) -> dict:
    """The weights NativeNet takes, folded as the torch inference path folds them: each
    sub-layer's norm gain into its first matrix and LayerScale into its last, the final norm's
    gain into the heads' first matrices."""
    c = net.config
    layers = []
    for attention, mlp in zip(net.sublayers[::2], net.sublayers[1::2], strict=True):
        assert isinstance(attention.inner, PoPEAttention) and isinstance(mlp.inner, MLP)
        qkv, out, tables = attention.inner.weights(attention.norm.weight, attention.gamma)
        up, down = mlp.inner.weights(mlp.norm.weight, mlp.gamma)
        layers.append(
            {
                "qkv": _floats(qkv),
                "out": _floats(out),
                "tables": _floats(tables),
                "up": _floats(up),
                "down": _floats(down),
            }
        )
    gain = net.final_norm.weight
    value1, value2 = net.value_head[0], net.value_head[2]
    score1, score2 = net.score_head[0], net.score_head[2]
    cells = net.cell_embedding if net.cell_embedding is not None else torch.zeros(_core.NUM_SQUARES, c.d_model)
    spec = {
        "planes": c.input_planes, "d": c.d_model, "layers": c.layers, "heads": c.heads,
        "mlp_hidden": net.sublayers[1].inner.up.out_features, "head_hidden": c.head_hidden,
        "legal_plane": LEGAL_PLANE, "feature_version": c.feature_version,
        "embed_weight": _floats(net.embed.weight), "embed_bias": _floats(net.embed.bias),
        "cell_embedding": _floats(cells), "depth_queries": _floats(net.depth.queries),
        "norm_eps": np.array([f.norm.eps for f in net.sublayers] + [net.final_norm.eps], np.float32),
        "score_eps": RMS_EPS, "layer": layers,
        "token_weight": _floats(net.token_head.weight * gain), "token_bias": _floats(net.token_head.bias),
        "value_weight1": _floats(value1.weight * gain), "value_bias1": _floats(value1.bias),
        "value_weight2": _floats(value2.weight), "value_bias2": _floats(value2.bias),
        "score_weight1": _floats(score1.weight * gain), "score_bias1": _floats(score1.bias),
        "score_weight2": _floats(score2.weight), "score_bias2": _floats(score2.bias),
        "score_scale": SCORE_SCALE, "masked_logit": MASKED_LOGIT,
    }  # fmt: skip
    if net.value_error_head is not None:
        error1, error2 = net.value_error_head[0], net.value_error_head[2]
        spec.update(
            value_error_weight1=_floats(error1.weight * gain), value_error_bias1=_floats(error1.bias),
            value_error_weight2=_floats(error2.weight), value_error_bias2=_floats(error2.bias),
        )  # fmt: skip
    return spec


class NativeForward:
    """features (N, planes, 9, 9) or (N, planes, 81) float32 -> the outputs of outputs.OUTPUTS as numpy arrays, in
    that order, on `threads` threads of its own, with bf16 or float32 products. ValueError
    where native_forward_refusal."""

    def __init__(
        self, net: PopucomNet, threads: int = 1, piece_positions: int = PIECE_POSITIONS, bf16: bool = True
    ) -> None:
        refusal = native_forward_refusal(net, bf16)
        if refusal is not None:
            raise ValueError(f"native forward: {refusal}")
        self.net, self.threads, self.piece_positions, self.bf16 = net, threads, piece_positions, bf16
        self.planes = net.config.input_planes
        self._packed: tuple[list, _core.NativeNet] | None = None
        # Checked before every call, so a list, not module.parameters(), which costs a sizeable
        # share of a batch-1 forward (docs/benchmarks.md, "Design notes behind the figures").
        # Parameters made under inference_mode cannot change in place and have no version counter.
        self._watched = [p for p in net.parameters() if not p.is_inference()]
        self.native()  # pack now: a bad network fails here, not at its first call

    def native(self) -> _core.NativeNet:
        """The packed network, repacked when a parameter has changed since: an in-place update
        or new storage (kept here, not on the network, which must stay deep-copyable)."""
        key = [(p.data_ptr(), p._version) for p in self._watched]
        if self._packed is None or self._packed[0] != key:
            with torch.no_grad():
                packed = _core.NativeNet(native_spec(self.net), self.threads, self.piece_positions, self.bf16)
                self._packed = (key, packed)
        return self._packed[1]

    def __call__(self, features: np.ndarray) -> tuple[np.ndarray, ...]:
        x = np.ascontiguousarray(features, np.float32)
        if x.ndim == 4:  # (N, planes, 9, 9)
            x = x.reshape(len(x), self.planes, _core.NUM_SQUARES)
        return self.native().forward(x, self.planes)
