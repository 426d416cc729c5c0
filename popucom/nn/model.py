"""PopucomNet: a transformer over the 81 cell tokens, no convolutions.

Residual paths are chosen by the config: plain pre-norm residuals, Full
attention residuals (`attn_res`), mHC streams (`mhc`), or both (mHC streams
carry the state; each sub-layer reads a depth-attention mix of the earlier
sub-layer outputs and the current stream readout).

Outputs (all from the side to move), named in outputs.HEADS: policy and
soft-policy logits over the cells with illegal cells masked, win/draw/loss
logits, the expected final margin in floors, and the final floor ownership in
[-1, 1] per cell; with `value_error_head`, the expected squared error of its
win - loss against the short-term value (the search's uncertainty weights).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .. import _core
from .config import ModelConfig
from .layers import MLP, DepthMixer, HyperConnection, PoPEAttention, RMSNorm, SubLayer, rms_normalize, tracing
from .outputs import HEADS, WDL, Output, model_outputs

LEGAL_PLANE = [name for name, _ in _core.FEATURE_PLANES].index("legal_moves")
SCORE_SCALE = 20.0  # the score head predicts margin / SCORE_SCALE
MASKED_LOGIT = -1.0e4  # finite so fp16 and ONNX stay well-defined


class PopucomNet(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        if config.feature_version != _core.FEATURE_VERSION:
            raise ValueError(
                f"model config is for feature version {config.feature_version}; "
                f"this build encodes version {_core.FEATURE_VERSION}"
            )
        self.config = c = config
        d = c.d_model
        self.embed = nn.Linear(c.input_planes, d)
        self.cell_embedding = nn.Parameter(torch.randn(_core.NUM_SQUARES, d) * 0.1) if c.absolute_positions else None
        self.sublayers = nn.ModuleList()
        for _ in range(c.layers):
            self.sublayers.append(
                SubLayer(d, PoPEAttention(d, c.heads, c.pope_theta_max, c.pope_theta_min), c.layer_scale_init)
            )
            self.sublayers.append(SubLayer(d, MLP(d, c.mlp_ratio), c.layer_scale_init))
        count = len(self.sublayers)
        self.depth = DepthMixer(d, count + 1) if c.attn_res else None
        self.hyper = (
            nn.ModuleList(HyperConnection(d, c.mhc_streams, i, c.sinkhorn_iters) for i in range(count))
            if c.mhc
            else None
        )
        self.final_norm = RMSNorm(d)
        self.token_head = nn.Linear(d, 3)  # policy, soft policy, ownership
        self.value_head = nn.Sequential(nn.Linear(d, c.head_hidden), nn.GELU(), nn.Linear(c.head_hidden, len(WDL)))
        self.score_head = nn.Sequential(nn.Linear(d, c.head_hidden), nn.GELU(), nn.Linear(c.head_hidden, 1))
        self.value_error_head = (
            nn.Sequential(nn.Linear(d, c.head_hidden), nn.GELU(), nn.Linear(c.head_hidden, 1), nn.Softplus())
            if c.value_error_head
            else None
        )

    # --- trunk variants: each returns its output RMS-normalised (the final norm without its gain)
    def _plain(self, h: torch.Tensor) -> torch.Tensor:
        for f in self.sublayers:
            h = h + f(h)
        return rms_normalize(h, self.final_norm.eps)

    def _attn_res(self, h0: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() or tracing():
            sources, scores = [h0], [self.depth.score(h0)]
            for i, f in enumerate(self.sublayers):
                v = f(self.depth.mix(i, sources, scores))
                sources.append(v)
                scores.append(self.depth.score(v))
            return rms_normalize(self.depth.mix(len(self.sublayers), sources, scores), self.final_norm.eps)
        # Inference: sources and scores go into preallocated stacks (no re-stacking per mix),
        # and each mix comes normalised, ready for its sub-layer (fused on the CPU).
        count = len(self.sublayers) + 1
        sources = h0.new_empty((count,) + h0.shape)
        scores = h0.new_empty((count,) + h0.shape[:2] + (count,), dtype=torch.float32)
        sources[0] = h0
        self.depth.score_into(h0, scores[0])
        for i, f in enumerate(self.sublayers):
            # The mix comes in the sub-layer's product dtype, its output goes straight into its slot.
            x = self.depth.mix_normalized(i, sources[: i + 1], scores[: i + 1], f.norm.eps, f.input_dtype(h0))
            v = f.run_normalized(x, out=sources[i + 1])
            self.depth.score_into(v, scores[i + 1])
        return self.depth.mix_normalized(count - 1, sources, scores, self.final_norm.eps)

    def _mhc(self, h0: torch.Tensor) -> torch.Tensor:
        streams = h0[:, :, None, :].expand(-1, -1, self.config.mhc_streams, -1).contiguous()
        if self.depth is None:
            sum_squares = None
            for f, hc in zip(self.sublayers, self.hyper):
                streams, sum_squares = hc(streams, f, sum_squares)
            return rms_normalize(streams.mean(2), self.final_norm.eps)
        # Both: the streams carry the state; each sub-layer reads a depth-attention
        # mix of the earlier sub-layer outputs and its own stream readout.
        if not (torch.is_grad_enabled() or tracing()):
            return self._mhc_attn_res_inference(h0, streams)
        sources, scores = [h0], [self.depth.score(h0)]
        for i, (f, hc) in enumerate(zip(self.sublayers, self.hyper)):
            outputs = []

            def branch(read: torch.Tensor, f: nn.Module = f, i: int = i, outputs: list = outputs) -> torch.Tensor:
                v = f(self.depth.mix(i, sources + [read], scores + [self.depth.score(read)]))
                outputs.append(v)
                return v

            streams = hc(streams, branch)[0]
            sources.append(outputs[0])
            scores.append(self.depth.score(outputs[0]))
        return rms_normalize(streams.mean(2), self.final_norm.eps)

    def _mhc_attn_res_inference(self, h0: torch.Tensor, streams: torch.Tensor) -> torch.Tensor:
        """_mhc with both, over preallocated stacks as in _attn_res: sub-layer i's stream
        readout sits in slot i + 1 for its mix, then its output takes the slot."""
        count = len(self.sublayers) + 1
        sources = h0.new_empty((count,) + h0.shape)
        scores = h0.new_empty((count,) + h0.shape[:2] + (count,), dtype=torch.float32)
        sources[0], scores[0] = h0, self.depth.score(h0)
        sum_squares = None
        for i, (f, hc) in enumerate(zip(self.sublayers, self.hyper)):

            def branch(read: torch.Tensor, f: nn.Module = f, slot: int = i + 1) -> torch.Tensor:
                sources[slot] = read
                self.depth.score_into(read, scores[slot])
                v = f.run_normalized(
                    self.depth.mix_normalized(slot - 1, sources[: slot + 1], scores[: slot + 1], f.norm.eps)
                )
                sources[slot] = v
                self.depth.score_into(v, scores[slot])
                return v

            streams, sum_squares = hc(streams, branch, sum_squares)
        return rms_normalize(streams.mean(2), self.final_norm.eps)

    def trunk(self, features: torch.Tensor) -> torch.Tensor:
        """The trunk's output (N, 81, d), RMS-normalised: the final norm without its gain."""
        tokens = features.flatten(2).transpose(1, 2)  # (N, 81, planes)
        h0 = self.embed(tokens)
        if self.cell_embedding is not None:
            h0 = h0 + self.cell_embedding.to(h0.dtype)
        if self.hyper is not None:
            return self._mhc(h0)
        if self.depth is not None:
            return self._attn_res(h0)
        return self._plain(h0)

    def forward(self, features: torch.Tensor) -> dict[str, torch.Tensor]:
        """The heads of outputs.HEADS, keyed by name, in that order (an optional head only
        when the config has it)."""
        h = self.trunk(features)
        h = h * self.final_norm.weight.to(h.dtype)
        per_cell = self.token_head(h)  # (N, 81, 3)
        illegal = features[:, LEGAL_PLANE].flatten(1) < 0.5
        policy = per_cell[..., 0].masked_fill(illegal, MASKED_LOGIT)
        soft_policy = per_cell[..., 1].masked_fill(illegal, MASKED_LOGIT)
        pooled = h.mean(dim=1)
        out = {
            "policy_logits": policy,
            "soft_policy_logits": soft_policy,
            "wdl_logits": self.value_head(pooled),
            "score": self.score_head(pooled).squeeze(-1) * SCORE_SCALE,
            "ownership": torch.tanh(per_cell[..., 2]),
        }
        if self.value_error_head is not None:
            out["value_error"] = self.value_error_head(pooled).squeeze(-1)
        return out

    @property
    def head_names(self) -> tuple[str, ...]:
        """The heads forward() returns."""
        return tuple(h.name for h in HEADS if not h.optional or self.config.value_error_head)

    @property
    def outputs(self) -> tuple[Output, ...]:
        """The deployed outputs of this network (outputs.model_outputs)."""
        return model_outputs(self.head_names)

    def set_inference_matmul_dtype(self, dtype: torch.dtype, attention_dots: torch.dtype | None = None) -> None:
        """The operand dtype of the sub-layers' matrix products in CPU inference (fp32
        activations in and out, fp32 accumulation), and of the attention kernel's logits and
        value sums on bf16 projections (`attention_dots`, default `dtype`); training and export
        are unaffected."""
        for f in self.sublayers:
            f.inference_matmul_dtype = dtype
            if isinstance(f.inner, PoPEAttention):
                f.inner.inference_dot_dtype = attention_dots or dtype

    # --- introspection --------------------------------------------------------
    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def muon_parameters(self) -> list[nn.Parameter]:
        """The hidden 2D matrices (attention and MLP weights): Muon's share."""
        params = []
        for f in self.sublayers:
            inner = f.inner
            attention = isinstance(inner, PoPEAttention)
            layers = [inner.q, inner.k, inner.v, inner.out] if attention else [inner.up, inner.down]
            params.extend(layer.weight for layer in layers)
        return params

    def max_attention_logit(self) -> float:
        values = [f.inner.last_max_logit for f in self.sublayers if isinstance(f.inner, PoPEAttention)]
        return float(torch.stack([v.float() for v in values]).max()) if values else 0.0


ACTIVATIONS = {None: lambda t: t, "softmax": lambda t: F.softmax(t, dim=-1)}


class ExportWrapper(nn.Module):
    """The deployed interface: (features) -> the tensors of the network's outputs
    (outputs.model_outputs), in OUTPUTS order (policy logits, wdl probabilities, score,
    ownership, value error when it has that head)."""

    def __init__(self, net: PopucomNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = self.net(features)
        return tuple(ACTIVATIONS[o.activation](out[o.head]) for o in self.net.outputs)
