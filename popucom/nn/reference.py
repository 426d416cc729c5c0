"""The network's forward written out plainly, from the same parameters: the yardstick for the
optimised forward in layers.py/model.py (tests) and the "before" of bench/inference.py.

Nothing here is folded, fused or cached: RMSNorm with its gain, PoPE q2/k2 built every call,
matmul + softmax + matmul attention, a Python loop over the attention-residual sources,
mHC with the RMSNorm over the whole stream state before its projection and Sinkhorn over
the last two dimensions: the formulas as written, before any folding or kernel.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .model import LEGAL_PLANE, MASKED_LOGIT, SCORE_SCALE, PopucomNet


def rms_norm(x: torch.Tensor, weight: torch.Tensor | None, eps: float = 1e-6) -> torch.Tensor:
    x32 = x.float()
    normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    return (normed if weight is None else normed * weight).to(x.dtype)


def attention(a, x: torch.Tensor) -> torch.Tensor:
    n, t, d = x.shape
    shape = (n, t, a.heads, a.head_dim)
    q = F.softplus(a.q(x)).view(shape).transpose(1, 2)
    k = F.softplus(a.k(x)).view(shape).transpose(1, 2)
    cos, sin = a.cos.to(q.dtype), a.sin.to(q.dtype)
    delta = a.delta.clamp(-2 * math.pi, 0.0)[None, :, None, :].to(q.dtype)
    cos_d, sin_d = delta.cos(), delta.sin()
    k_cos = cos * cos_d - sin * sin_d
    k_sin = sin * cos_d + cos * sin_d
    q2 = torch.cat([q * cos, q * sin], dim=-1)
    k2 = torch.cat([k * k_cos, k * k_sin], dim=-1)
    logits = torch.matmul(q2, k2.transpose(-1, -2)) * a.scale
    v = a.v(x).view(shape).transpose(1, 2)
    y = torch.matmul(torch.softmax(logits.float(), dim=-1).to(v.dtype), v).transpose(1, 2).reshape(n, t, d)
    return a.out(y)


def sublayer(f, x: torch.Tensor) -> torch.Tensor:
    inner = f.inner
    h = rms_norm(x, f.norm.weight)
    y = attention(inner, h) if hasattr(inner, "delta") else inner.down(F.gelu(inner.up(h)))
    return f.gamma * y


def score(depth, source: torch.Tensor) -> torch.Tensor:
    return torch.matmul(rms_norm(source, None).float(), depth.queries.float().t())


def mix(index: int, sources: list[torch.Tensor], scores: list[torch.Tensor]) -> torch.Tensor:
    weights = torch.softmax(torch.stack([s[..., index] for s in scores]), dim=0).to(sources[0].dtype)
    out = weights[0, ..., None] * sources[0]
    for w, v in zip(weights[1:], sources[1:]):
        out = out + w[..., None] * v
    return out


def sinkhorn(logits: torch.Tensor, iters: int) -> torch.Tensor:
    m = torch.exp(logits.float() - logits.float().amax(dim=(-1, -2), keepdim=True))
    for _ in range(iters):
        m = m / m.sum(dim=-2, keepdim=True)
        m = m / m.sum(dim=-1, keepdim=True)
    return m


def hyper(hc, streams: torch.Tensor, branch) -> torch.Tensor:
    n_batch, t, n, d = streams.shape
    h = hc.proj(rms_norm(streams.reshape(n_batch, t, n * d), hc.norm.weight))
    h_pre = torch.sigmoid(hc.alpha[0] * h[..., :n] + hc.b_pre)
    h_post = 2 * torch.sigmoid(hc.alpha[1] * h[..., n : 2 * n] + hc.b_post)
    h_res = sinkhorn(hc.alpha[2] * h[..., 2 * n :].reshape(n_batch, t, n, n) + hc.b_res, hc.iters)
    out = branch(torch.einsum("ntk,ntkd->ntd", h_pre, streams))
    mixed = torch.einsum("ntjk,ntkd->ntjd", h_res.to(streams.dtype), streams)
    return mixed + h_post[..., None] * out[:, :, None, :]


def trunk(net: PopucomNet, features: torch.Tensor) -> torch.Tensor:
    h0 = net.embed(features.flatten(2).transpose(1, 2))
    if net.cell_embedding is not None:
        h0 = h0 + net.cell_embedding.to(h0.dtype)
    if net.hyper is None and net.depth is None:
        h = h0
        for f in net.sublayers:
            h = h + sublayer(f, h)
        return h
    if net.hyper is None:
        sources, scores = [h0], [score(net.depth, h0)]
        for i, f in enumerate(net.sublayers):
            v = sublayer(f, mix(i, sources, scores))
            sources.append(v)
            scores.append(score(net.depth, v))
        return mix(len(net.sublayers), sources, scores)
    streams = h0[:, :, None, :].expand(-1, -1, net.config.mhc_streams, -1).contiguous()
    if net.depth is None:
        for f, hc in zip(net.sublayers, net.hyper):
            streams = hyper(hc, streams, lambda x, f=f: sublayer(f, x))
        return streams.mean(2)
    sources, scores = [h0], [score(net.depth, h0)]
    for i, (f, hc) in enumerate(zip(net.sublayers, net.hyper)):
        outputs: list[torch.Tensor] = []

        def branch(read, f=f, i=i, outputs=outputs):
            v = sublayer(f, mix(i, sources + [read], scores + [score(net.depth, read)]))
            outputs.append(v)
            return v

        streams = hyper(hc, streams, branch)
        sources.append(outputs[0])
        scores.append(score(net.depth, outputs[0]))
    return streams.mean(2)


def eager_reference(net: PopucomNet, features: torch.Tensor) -> dict[str, torch.Tensor]:
    """PopucomNet.forward(features), computed plainly (see the module docstring)."""
    h = rms_norm(trunk(net, features), net.final_norm.weight)
    per_cell = net.token_head(h)
    illegal = features[:, LEGAL_PLANE].flatten(1) < 0.5
    pooled = h.mean(dim=1)
    out = {
        "policy_logits": per_cell[..., 0].masked_fill(illegal, MASKED_LOGIT),
        "soft_policy_logits": per_cell[..., 1].masked_fill(illegal, MASKED_LOGIT),
        "wdl_logits": net.value_head(pooled),
        "score": net.score_head(pooled).squeeze(-1) * SCORE_SCALE,
        "ownership": torch.tanh(per_cell[..., 2]),
    }
    if net.value_error_head is not None:
        hidden = F.gelu(net.value_error_head[0](pooled))
        out["value_error"] = F.softplus(net.value_error_head[2](hidden)).squeeze(-1)
    return out
