"""Building blocks: RMSNorm, 2D PoPE attention, the MLP, mHC and attention residuals.

Speed: the network is bound by many small operations, so each sub-layer folds its
gains into its weights (RMSNorm gain into the input columns, LayerScale into the output rows,
mHC's alphas and norm gain into its projection), PoPE's cos/sin tables are built once per
weight update, and attention is one `scaled_dot_product_attention` call per layer. Without
gradients (inference) the folded weights and tables are cached on the module and rebuilt when
a parameter changes (new storage or in-place update); with gradients, under torch.compile and
in ONNX export they are recomputed in the graph, where they cost O(parameters).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .. import _core

BOARD = _core.BOARD_SIZE
NUM_SQUARES = _core.NUM_SQUARES


def tracing() -> bool:
    """True while torch.jit, torch.compile or the ONNX exporter traces the forward."""
    return torch.jit.is_tracing() or torch.compiler.is_compiling() or torch.onnx.is_in_onnx_export()


def cached(module: nn.Module, build: Callable[[], tuple], slot: str = "_folded") -> tuple:
    """build() (tensors derived from module's parameters), cached on the module under `slot`
    while no gradient is wanted; a parameter with new storage or a new version invalidates it."""
    if torch.is_grad_enabled() or tracing():
        return build()
    # Parameters made under torch.inference_mode have no version counter (and cannot change in place).
    key = tuple((p.data_ptr(), -1 if p.is_inference() else p._version, p.dtype) for p in module.parameters())
    hit = module.__dict__.get(slot)
    if hit is None or hit[0] != key:
        hit = module.__dict__[slot] = (key, build())
    return hit[1]


RMS_EPS = 1e-6


def rms_normalize(x: torch.Tensor, eps: float = RMS_EPS) -> torch.Tensor:
    """RMSNorm without a gain (AttnRes keys, folded sub-layer inputs); fp32 statistics."""
    if x.dtype == torch.float32:
        return F.rms_norm(x, (x.shape[-1],), eps=eps)
    x32 = x.float()
    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = RMS_EPS) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_normalize(x, self.eps) * self.weight.to(x.dtype)


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
    [-2 pi, 0] so that left and right differ from the first step. The logit
    sum_j |q_j| |k_j| cos(phi_k + delta - phi_q) is the dot product of
    q2 = |q| (cos phi_q, sin phi_q) and k2 = |k| (cos(phi_k + delta), sin(phi_k + delta)),
    so one attention call over head width 2 * head_dim computes it.
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
        self.scale = self.head_dim**-0.5  # of the original width, passed explicitly
        self.last_max_logit = torch.tensor(0.0)
        # CPU inference with bf16 projections only: the operand dtype of the kernel's logits and
        # value sums (bf16: AVX512-BF16 dot products where the CPU has them; PopucomNet sets it).
        self.inference_dot_dtype = torch.float32

    def tables(self) -> torch.Tensor:
        """(2, heads, 81, 2, head_dim): [query, key] x [cos, sin] of the phases; the query
        side carries the attention scale, the key side the phase bias delta."""
        delta = self.delta.clamp(-2 * math.pi, 0.0)[:, None, :]  # (h, 1, hd)
        cos, sin = self.cos.to(delta.dtype), self.sin.to(delta.dtype)  # (81, hd)
        cos_d, sin_d = delta.cos(), delta.sin()
        # cos(phi_k + delta) and sin(phi_k + delta) by the angle-sum identities.
        k = torch.stack([cos * cos_d - sin * sin_d, sin * cos_d + cos * sin_d], dim=2)  # (h, 81, 2, hd)
        q = torch.stack([cos, sin], dim=1).mul(self.scale).expand_as(k)
        return torch.stack([q, k])

    def weights(self, in_gain: torch.Tensor | None = None, out_gain: torch.Tensor | None = None) -> tuple:
        """(qkv weight with in_gain folded into its columns, out weight with out_gain folded into its rows, tables)."""
        qkv = torch.cat([self.q.weight, self.k.weight, self.v.weight])
        out = self.out.weight
        if in_gain is not None:
            qkv = qkv * in_gain
        if out_gain is not None:
            out = out * out_gain[:, None]
        return qkv, out, self.tables()

    def project(self, x: torch.Tensor, weights: tuple) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """q2, k2 (N, heads, 81, 2 * head_dim) and v (N, 81, heads, head_dim) for one attention call."""
        n, t, d = x.shape
        h, hd = self.heads, self.head_dim
        w_qkv, _, tables = weights
        qkv = F.linear(x, w_qkv)
        magnitude = F.softplus(qkv[..., : 2 * d]).view(n, t, 2, h, 1, hd).permute(0, 2, 3, 1, 4, 5)
        # The product is written head-major, so q2 and k2 are contiguous views of it.
        qk = torch.mul(magnitude, tables.to(x.dtype))  # (n, 2, h, 81, 2, hd)
        q2, k2 = qk.reshape(n, 2, h, t, 2 * hd).unbind(1)
        return q2, k2, qkv[..., 2 * d :].view(n, t, h, hd)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """Attention logits (N, heads, 81, 81) (the scale of the original width included)."""
        q2, k2, _ = self.project(x, self.weights())
        return torch.matmul(q2, k2.transpose(-1, -2))

    def run(self, x: torch.Tensor, weights: tuple) -> torch.Tensor:
        n, t, d = x.shape
        h, hd = self.heads, self.head_dim
        if fused_attention_applies(x, hd):
            return F.linear(self.fused_core(x, weights), weights[1])
        if weights[0].dtype != x.dtype:  # narrowed products on a head width the kernel lacks
            return self.run(x.to(weights[0].dtype), weights)
        q2, k2, v = self.project(x, weights)
        if self.training and torch.is_grad_enabled() and not tracing():
            with torch.no_grad():  # a training-time monitor, on a slice of the batch
                self.last_max_logit = torch.matmul(q2[:32], k2[:32].transpose(-1, -2)).amax()
        if tracing():
            # Export and compile: the plain formula (ONNX has no fused attention at opset 18).
            attn = torch.softmax(torch.matmul(q2, k2.transpose(-1, -2)).float(), dim=-1).to(v.dtype)
            y = torch.matmul(attn, v.transpose(1, 2))  # (n, h, 81, hd)
        else:
            # CPU SDPA has a fused (flash) kernel only when v is as wide as q and k: pad v with zeros.
            v2 = x.new_zeros(n, h, t, 2 * hd)
            v2[..., :hd] = v.transpose(1, 2)
            y = F.scaled_dot_product_attention(q2, k2, v2, scale=1.0)[..., :hd]
        return F.linear(y.transpose(1, 2).reshape(n, t, d), weights[1])

    def fused_core(self, x: torch.Tensor, weights: tuple) -> torch.Tensor:
        """Softplus, PoPE, logits, softmax and values in one C++ pass per (position, head)
        (csrc/nn/pope_attention.h): (N, 81, d) before the output projection, in the dtype of
        the matrix products (the kernel reads and writes bf16 itself)."""
        qkv = F.linear(x.to(weights[0].dtype), weights[0])
        y = torch.empty(x.shape, dtype=qkv.dtype)
        tables = weights[2].float().contiguous().numpy()
        _core.pope_attention(numpy_view(qkv), tables, numpy_view(y), bf16_dots=self.bf16_dots_apply(qkv))
        return y

    def bf16_dots_apply(self, qkv: torch.Tensor) -> bool:
        """Whether the kernel takes its logits and value sums as bf16 dot products: asked for,
        on bf16 projections, and served by this CPU for this head width."""
        return (
            self.inference_dot_dtype == torch.bfloat16
            and qkv.dtype == torch.bfloat16
            and _core.pope_attention_bf16_dots_apply(self.head_dim)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run(x, self.weights())


# Off: inference runs the torch formula (bench/inference.py times both).
use_attention_kernel = True


def fused_attention_applies(x: torch.Tensor, head_dim: int) -> bool:
    """The C++ attention kernel serves inference of fp32 or bf16 CPU activations over the board."""
    return (
        use_attention_kernel
        and native_inference(x, bf16=True)
        and x.shape[1] == NUM_SQUARES
        and head_dim in _core.POPE_HEAD_DIMS
    )


class MLP(nn.Module):
    def __init__(self, d_model: int, ratio: int) -> None:
        super().__init__()
        self.up = nn.Linear(d_model, d_model * ratio, bias=False)
        self.down = nn.Linear(d_model * ratio, d_model, bias=False)

    def weights(self, in_gain: torch.Tensor | None = None, out_gain: torch.Tensor | None = None) -> tuple:
        up, down = self.up.weight, self.down.weight
        return (up if in_gain is None else up * in_gain), (down if out_gain is None else down * out_gain[:, None])

    def run(self, x: torch.Tensor, weights: tuple) -> torch.Tensor:
        """The MLP of x, in the dtype of the weights (the matrix products'), which may not be x's."""
        up, down = weights
        return F.linear(F.gelu(F.linear(x.to(up.dtype), up)), down)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run(x, self.weights())


# Below this many positions the conversions to and from bf16 cost more than the narrower
# products save (popucom.experiments.precision: slower at batch 1, faster from 8 on).
NARROW_MATMUL_MIN_BATCH = 8


class SubLayer(nn.Module):
    """Pre-norm branch with LayerScale: gamma * f(RMSNorm(x)), with the norm's gain and
    gamma folded into f's first and last weights."""

    def __init__(self, d_model: int, inner: nn.Module, layer_scale: float) -> None:
        super().__init__()
        self.norm = RMSNorm(d_model)
        self.inner = inner
        self.gamma = nn.Parameter(torch.full((d_model,), layer_scale))
        # CPU inference only (fp32 activations in and out): the dtype of the matrix products'
        # operands, e.g. bf16 where the CPU has bf16 arithmetic (popucom.infer.precision).
        self.inference_matmul_dtype = torch.float32

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run_normalized(rms_normalize(x, self.norm.eps))

    def input_dtype(self, x: torch.Tensor) -> torch.dtype:
        """The dtype of this sub-layer's matrix products on activations like x (fp32 CPU
        inference narrows them from NARROW_MATMUL_MIN_BATCH positions on), which is the dtype
        a kernel that makes its input best writes it in."""
        narrow = native_inference(x) and len(x) >= NARROW_MATMUL_MIN_BATCH
        return self.inference_matmul_dtype if narrow else x.dtype

    def run_normalized(self, x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """forward() of an input already RMS-normalised (without the gain, which is folded), in
        x's dtype, or copied into `out` (the residual stream's slot) in out's. An input in the
        products' dtype already (written so by the depth-mix kernel) needs `out`."""
        dtype = self.input_dtype(x)
        weights = cached(self, lambda: self.inner.weights(self.norm.weight, self.gamma))
        if dtype != self.gamma.dtype:  # the matrices only: PoPE's phase tables stay fp32
            weights = cached(
                self, lambda: tuple(w.to(dtype) if w.dim() == 2 else w for w in weights), f"_folded_{dtype}"
            )
        y = self.inner.run(x, weights)
        return y.to(x.dtype) if out is None else out.copy_(y)


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

    @staticmethod
    def mix_stacked(index: int, sources: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """sources (s, N, t, d) and their scores (s, N, t, mixes) -> mix `index` (N, t, d)."""
        weights = torch.softmax(scores[..., index], dim=0).to(sources.dtype)[..., None]
        if torch.is_grad_enabled():
            return (weights * sources).sum(0)
        out = weights[0] * sources[0]
        for w, v in zip(weights[1:], sources[1:]):  # in place: one pass per source, no (s, N, t, d) temporary
            out.addcmul_(w, v)
        return out

    def mix(self, index: int, sources: list[torch.Tensor], scores: list[torch.Tensor]) -> torch.Tensor:
        return self.mix_stacked(index, torch.stack(sources), torch.stack(scores))

    def mix_normalized(
        self, index: int, sources: torch.Tensor, scores: torch.Tensor, eps: float, dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """rms_normalize(mix_stacked(...)): the input of a sub-layer or of the final norm, in
        `dtype` (default the sources'). In inference on the CPU one fused pass per token
        (csrc/nn/depth_mix.h), which writes bf16 itself."""
        dtype = dtype or sources.dtype
        if not (use_depth_kernel and native_inference(sources) and native_inference(scores)):
            return rms_normalize(self.mix_stacked(index, sources, scores), eps).to(dtype)
        out = torch.empty(sources.shape[1:], dtype=dtype)
        count, d = sources.shape[0], sources.shape[-1]
        rows = out.numel() // d
        _core.depth_mix_normalized(
            sources.view(count, rows, d).numpy(),
            scores.view(count, rows, -1).numpy(),
            index,
            eps,
            numpy_view(out.view(rows, d)),
        )
        return out

    def score_into(self, source: torch.Tensor, out: torch.Tensor) -> None:
        """out[...] = score(source), for the preallocated score stacks of inference."""
        if not (use_depth_kernel and native_inference(source) and native_inference(out)):
            out.copy_(self.score(source))
            return
        d = source.shape[-1]
        (queries,) = cached(self, lambda: (self.queries.detach().float().contiguous(),))
        _core.depth_score(source.view(-1, d).numpy(), queries.numpy(), RMS_EPS, out.view(-1, len(queries)).numpy())


# Off: the depth mixes run in torch (bench/inference.py times both).
use_depth_kernel = True


def native_inference(x: torch.Tensor, bf16: bool = False) -> bool:
    """The C++ kernels serve inference of contiguous fp32 CPU activations (numpy views of
    them; numpy_view), and those that take bf16 (`bf16`) of bf16 ones too."""
    return (
        not torch.is_grad_enabled()
        and not tracing()
        and x.device.type == "cpu"
        and (x.dtype == torch.float32 or (bf16 and x.dtype == torch.bfloat16))
        and x.is_contiguous()
    )


def numpy_view(x: torch.Tensor) -> np.ndarray:
    """x's memory as numpy sees it: bf16 (which numpy lacks) as an int16 array of its bits,
    the form the C++ kernels take it in."""
    return x.view(torch.int16).numpy() if x.dtype == torch.bfloat16 else x.numpy()


def fused_kernels_apply(streams: torch.Tensor, n: int) -> bool:
    """The C++ mHC kernels serve inference of up to MHC_MAX_STREAMS streams."""
    return native_inference(streams) and n <= _core.MHC_MAX_STREAMS


def sinkhorn(logits: torch.Tensor, iters: int) -> torch.Tensor:
    """Projects (..., n, n) logits to a (nearly) doubly stochastic matrix, in fp32."""
    return sinkhorn_leading(logits.movedim((-2, -1), (0, 1)), iters).movedim((0, 1), (-2, -1))


def sinkhorn_leading(logits: torch.Tensor, iters: int) -> torch.Tensor:
    """sinkhorn() with the matrix in the two leading dimensions, (n, n, ...): the
    normalisations then run over contiguous rows of the batch, not 4-element strips."""
    m = logits.float()
    m = torch.exp(m - m.amax(dim=(0, 1), keepdim=True))
    for _ in range(iters):
        m = m / m.sum(dim=0, keepdim=True)
        m = m / m.sum(dim=1, keepdim=True)
    return m


class HyperConnection(nn.Module):
    """mHC around one sub-layer: n residual streams, input-dependent read (pre),
    write (post) and stream-mixing (res) maps; res is made doubly stochastic by
    Sinkhorn. Per-stream biases break the symmetry of identical initial
    streams so the streams diverge (without them the reference project's streams
    collapse into one and the mixing does nothing).

    The RMSNorm over the n * d stream state is applied after the projection, as the
    mHC paper does: proj(g * x / rms(x)) = (proj (g, alpha folded) x) / rms(x)."""

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

    def folded(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(projection with the norm gain and the alphas folded in, bias), rows [pre, post, res]."""
        n = self.n
        alpha = torch.cat([self.alpha[0].expand(n), self.alpha[1].expand(n), self.alpha[2].expand(n * n)])
        weight = self.proj.weight * self.norm.weight * alpha[:, None]
        return weight, torch.cat([self.b_pre, self.b_post, self.b_res.flatten()])

    def forward(
        self, streams: torch.Tensor, branch: nn.Module, sum_squares: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(new streams, each token's sum of squared stream values (N * t,) where the fused
        kernels give it for free, else None). Handing the sums to the next sub-layer saves its
        norm a pass over the n * d stream state."""
        # streams: (N, t, n, d)
        n_batch, t, n, d = streams.shape
        weight, bias = cached(self, self.folded)
        flat = streams.reshape(n_batch * t, n * d)
        x32 = flat.float()
        if sum_squares is None:
            sum_squares = torch.linalg.vector_norm(x32, dim=-1).square()
        inv_rms = torch.rsqrt(sum_squares / (n * d) + self.norm.eps)  # (B,)
        # Rows are maps, columns tokens: the maps' elementwise work runs over contiguous rows.
        h = torch.addcmul(bias[:, None], torch.mm(weight, x32.t()), inv_rms)  # (2n + n^2, B)
        if fused_kernels_apply(streams, n):
            return self.fused_forward(h, streams, branch)  # h from addcmul is contiguous
        s = streams.view(n_batch * t, n, d)
        h_pre = torch.sigmoid(h[:n]).to(streams.dtype)  # (n, B)
        h_post = 2 * torch.sigmoid(h[n : 2 * n]).to(streams.dtype)
        h_res = sinkhorn_leading(h[2 * n :].view(n, n, -1), self.iters).to(streams.dtype)  # (n, n, B)
        if torch.is_grad_enabled():
            read = torch.einsum("kb,bkd->bd", h_pre, s)
            out = branch(read.view(n_batch, t, d)).reshape(n_batch * t, 1, d)
            mixed = torch.einsum("jkb,bkd->bjd", h_res, s)
            return (mixed + h_post.t()[:, :, None] * out).view(n_batch, t, n, d), None
        # Inference without the fused kernels (other dtypes, devices): n and n^2 fused
        # multiply-adds over (tokens, d); torch's batched matmul of 1x4 and 4x4 matrices per
        # token is many times slower.
        read = h_pre[0, :, None] * s[:, 0]
        for k in range(1, n):
            read.addcmul_(h_pre[k, :, None], s[:, k])
        out = branch(read.view(n_batch, t, d)).reshape(n_batch * t, d)
        mixed = torch.empty_like(s)
        for j in range(n):
            row = torch.mul(h_post[j, :, None], out, out=mixed[:, j])
            for k in range(n):
                row.addcmul_(h_res[j, k, :, None], s[:, k])
        return mixed.view(n_batch, t, n, d), None

    def fused_forward(
        self, maps: torch.Tensor, streams: torch.Tensor, branch: nn.Module
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The inference path through the C++ kernels: one pass for the read, one for
        Sinkhorn and the write (with the next norm's sums), instead of n^2 + 2n + 4 * iters
        torch operations and a norm pass."""
        n_batch, t, n, d = streams.shape
        s = streams.view(n_batch * t, n, d).numpy()
        read = torch.empty(n_batch, t, d)
        _core.mhc_read(maps.numpy(), s, read.view(n_batch * t, d).numpy())
        out = branch(read).reshape(n_batch * t, d).contiguous()
        mixed = torch.empty_like(streams)
        sum_squares = torch.empty(n_batch * t)
        mixed_rows = mixed.view(n_batch * t, n, d).numpy()
        _core.mhc_write(maps.numpy(), s, out.numpy(), self.iters, mixed_rows, sum_squares.numpy())
        return mixed, sum_squares
