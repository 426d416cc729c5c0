"""Building blocks: RMSNorm, 2D PoPE attention, the MLP, mHC and attention residuals."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .. import _core

BOARD = _core.BOARD_SIZE


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return (normed * self.weight).to(x.dtype)


def rms_normalize(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm without a gain (AttnRes keys; a gain would be redundant with the pseudo-query)."""
    x32 = x.float()
    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def pope_phases(head_dim: int, theta_max: float, theta_min: float) -> torch.Tensor:
    """Phase of every (cell, component): the first half of a head's components
    turn with the row, the second half with the column. Shape (81, head_dim)."""
    half = head_dim // 2
    thetas = torch.tensor([theta_max * (theta_min / theta_max) ** (j / max(half - 1, 1)) for j in range(half)])
    rows = torch.arange(BOARD).repeat_interleave(BOARD).float()
    cols = torch.arange(BOARD).repeat(BOARD).float()
    return torch.cat([rows[:, None] * thetas[None, :], cols[:, None] * thetas[None, :]], dim=1)


class PoPEAttention(nn.Module):
    """Multi-head self-attention over the 81 cells with 2D PoPE positions.

    Content sets each component's magnitude (softplus), position its phase;
    the key phase carries a learnable per-head bias delta, initialised in
    [-2 pi, 0] so that left and right differ from the first step.
    """

    def __init__(self, d_model: int, heads: int, theta_max: float, theta_min: float) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = d_model // heads
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.out = nn.Linear(d_model, d_model, bias=False)
        self.delta = nn.Parameter(torch.empty(heads, self.head_dim).uniform_(-2 * math.pi, 0.0))
        phases = pope_phases(self.head_dim, theta_max, theta_min)
        self.register_buffer("cos", phases.cos(), persistent=False)
        self.register_buffer("sin", phases.sin(), persistent=False)
        self.scale = self.head_dim ** -0.5  # of the original width, passed explicitly
        self.last_max_logit = torch.tensor(0.0)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """Attention logits (N, heads, 81, 81): sum over components of
        |q| |k| cos(phi_k + delta - phi_q), times the scale of the original width."""
        n, t, _ = x.shape
        shape = (n, t, self.heads, self.head_dim)
        q = F.softplus(self.q(x)).view(shape).transpose(1, 2)  # (n, h, 81, hd)
        k = F.softplus(self.k(x)).view(shape).transpose(1, 2)
        cos, sin = self.cos.to(q.dtype), self.sin.to(q.dtype)
        delta = self.delta.clamp(-2 * math.pi, 0.0)[None, :, None, :].to(q.dtype)
        # cos(phi_k + delta) and sin(phi_k + delta) by the angle-sum identities.
        cos_d, sin_d = delta.cos(), delta.sin()
        k_cos = cos * cos_d - sin * sin_d
        k_sin = sin * cos_d + cos * sin_d
        q2 = torch.cat([q * cos, q * sin], dim=-1)
        k2 = torch.cat([k * k_cos, k * k_sin], dim=-1)
        return torch.matmul(q2, k2.transpose(-1, -2)) * self.scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, t, d = x.shape
        logits = self.logits(x)
        if not torch.jit.is_tracing() and not torch.compiler.is_compiling() and not torch.onnx.is_in_onnx_export():
            self.last_max_logit = logits.detach().amax()
        v = self.v(x).view(n, t, self.heads, self.head_dim).transpose(1, 2)
        attn = torch.softmax(logits.float(), dim=-1).to(v.dtype)
        y = torch.matmul(attn, v).transpose(1, 2).reshape(n, t, d)
        return self.out(y)


class MLP(nn.Module):
    def __init__(self, d_model: int, ratio: int) -> None:
        super().__init__()
        self.up = nn.Linear(d_model, d_model * ratio, bias=False)
        self.down = nn.Linear(d_model * ratio, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class SubLayer(nn.Module):
    """Pre-norm branch with LayerScale: gamma * f(RMSNorm(x))."""

    def __init__(self, d_model: int, inner: nn.Module, layer_scale: float) -> None:
        super().__init__()
        self.norm = RMSNorm(d_model)
        self.inner = inner
        self.gamma = nn.Parameter(torch.full((d_model,), layer_scale))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gamma * self.inner(self.norm(x))


class DepthMixer(nn.Module):
    """Full attention residuals: sub-layer l reads a softmax mix of all earlier
    sources (the embedding and every earlier sub-layer output), weighted by its
    zero-initialised pseudo-query against RMS-normalised keys, so the mix
    starts uniform. Each source is scored against every query once, when it
    is created, which keeps the overhead O(sources) per sub-layer."""

    def __init__(self, d_model: int, mixes: int) -> None:
        super().__init__()
        self.queries = nn.Parameter(torch.zeros(mixes, d_model))

    def score(self, source: torch.Tensor) -> torch.Tensor:
        """(N, t, d) -> (N, t, mixes): the source's key against every pseudo-query."""
        return torch.matmul(rms_normalize(source).float(), self.queries.float().t())

    def mix(self, index: int, sources: list[torch.Tensor], scores: list[torch.Tensor]) -> torch.Tensor:
        weights = torch.softmax(torch.stack([s[..., index] for s in scores]), dim=0).to(sources[0].dtype)
        out = weights[0, ..., None] * sources[0]
        for w, v in zip(weights[1:], sources[1:]):
            out = out + w[..., None] * v
        return out


def sinkhorn(logits: torch.Tensor, iters: int) -> torch.Tensor:
    """Projects (..., n, n) logits to a (nearly) doubly stochastic matrix, in fp32."""
    m = torch.exp(logits.float() - logits.float().amax(dim=(-1, -2), keepdim=True))
    for _ in range(iters):
        m = m / m.sum(dim=-2, keepdim=True)
        m = m / m.sum(dim=-1, keepdim=True)
    return m


class HyperConnection(nn.Module):
    """mHC around one sub-layer: n residual streams, input-dependent read (pre),
    write (post) and stream-mixing (res) maps; res is made doubly stochastic by
    Sinkhorn. Per-stream biases break the symmetry of identical initial
    streams so the streams diverge (the reference's collapse; REFERENCE.md 3)."""

    def __init__(self, d_model: int, streams: int, layer_index: int, sinkhorn_iters: int) -> None:
        super().__init__()
        n = streams
        self.n = n
        self.iters = sinkhorn_iters
        self.norm = RMSNorm(n * d_model)
        self.proj = nn.Linear(n * d_model, 2 * n + n * n, bias=False)
        nn.init.normal_(self.proj.weight, std=0.02)
        self.alpha = nn.Parameter(torch.full((3,), 0.01))
        # Read mostly one stream (which one rotates with depth), write with
        # distinct strengths per stream, and start res near the identity.
        pre = torch.full((n,), -2.0)
        pre[layer_index % n] = 2.0
        self.b_pre = nn.Parameter(pre)
        self.b_post = nn.Parameter(torch.linspace(-1.0, 1.0, n))
        self.b_res = nn.Parameter(3.0 * torch.eye(n))

    def forward(self, streams: torch.Tensor, branch: nn.Module) -> torch.Tensor:
        # streams: (N, t, n, d)
        n_batch, t, n, d = streams.shape
        x = self.norm(streams.reshape(n_batch, t, n * d))
        h = self.proj(x)
        h_pre = torch.sigmoid(self.alpha[0] * h[..., :n] + self.b_pre)
        h_post = 2 * torch.sigmoid(self.alpha[1] * h[..., n:2 * n] + self.b_post)
        h_res = sinkhorn(self.alpha[2] * h[..., 2 * n:].reshape(n_batch, t, n, n) + self.b_res, self.iters)
        read = torch.einsum("ntk,ntkd->ntd", h_pre, streams)
        out = branch(read)
        mixed = torch.einsum("ntjk,ntkd->ntjd", h_res.to(streams.dtype), streams)
        return mixed + h_post[..., None] * out[:, :, None, :]
