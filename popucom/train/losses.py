"""The training losses: one term per head of popucom.nn.outputs.HEADS that the network has,
computed by the head's loss kind against its target (a batch field, or one derived from the
network's other outputs: DERIVED_TARGETS) and weighted by its LossWeights field.

The terms are returned unweighted under the head's weight name (the metrics' `loss/<name>`),
with the weighted sum under "total", summed in HEADS order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
import torch.nn.functional as F

from ..nn.config import LossWeights, ModelConfig
from ..nn.outputs import HEADS, Head

# A loss kind: (prediction, target, the whole batch, the weights, the head) -> a scalar.
LossKind = Callable[[torch.Tensor, torch.Tensor, Mapping[str, torch.Tensor], LossWeights, Head], torch.Tensor]

SOFT_POLICY_POWER = 0.25  # KataGo's soft policy target: pi^(1/4), renormalised


def _full_search_mean(per_row: torch.Tensor, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """Mean over the rows that had a full search (policy targets of fast searches are not trained on)."""
    full = batch["full_search"]
    return (per_row * full).sum() / full.sum().clamp(min=1.0)


def _cross_entropy_to(target: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    return -(target * F.log_softmax(logits.float(), dim=-1)).sum(-1)


def distribution_ce(pred, target, batch, weights, head) -> torch.Tensor:
    """Cross-entropy to a target distribution over the last axis, full-search rows only."""
    return _full_search_mean(_cross_entropy_to(target, pred), batch)


def soft_distribution_ce(pred, target, batch, weights, head) -> torch.Tensor:
    """distribution_ce to the target raised to SOFT_POLICY_POWER and renormalised."""
    soft = target.clamp(min=0).pow(SOFT_POLICY_POWER)
    soft = soft / soft.sum(-1, keepdim=True).clamp(min=1e-12)
    return _full_search_mean(_cross_entropy_to(soft, pred), batch)


def class_ce(pred, target, batch, weights, head) -> torch.Tensor:
    """Cross-entropy of logits to a class index (or to a distribution over the classes)."""
    return F.cross_entropy(pred.float(), target)


def huber(pred, target, batch, weights, head) -> torch.Tensor:
    """Huber loss of width LossWeights.<weight>_huber_delta."""
    return F.huber_loss(pred.float(), target, delta=getattr(weights, f"{head.weight}_huber_delta"))


def mse(pred, target, batch, weights, head) -> torch.Tensor:
    return F.mse_loss(pred.float(), target)


LOSS_KINDS: dict[str, LossKind] = {
    "distribution_ce": distribution_ce,
    "soft_distribution_ce": soft_distribution_ce,
    "class_ce": class_ce,
    "huber": huber,
    "mse": mse,
}


def value_squared_error(out: Mapping[str, torch.Tensor], batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The value-error head's target: the squared gap between the value head's win - loss (held
    fixed: the value head must not move to make its error look small) and the short-term value."""
    wdl = F.softmax(out["wdl_logits"].detach().float(), dim=-1)
    return (batch["short_term_value"] - (wdl[:, 0] - wdl[:, 2])).square()


# Targets computed from the network's outputs and the batch, by name (a Head's `target`).
DERIVED_TARGETS: dict[str, Callable[[Mapping[str, torch.Tensor], Mapping[str, torch.Tensor]], torch.Tensor]] = {
    "value_squared_error": value_squared_error,
}

# The batch fields the losses read: the heads' stored targets, what the derived ones read, and
# the full-search row weights.
TARGET_FIELDS = (
    *dict.fromkeys(h.target for h in HEADS if h.target not in DERIVED_TARGETS),
    "short_term_value",
    "full_search",
)


def _target(head: Head, out: Mapping[str, torch.Tensor], batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    derive = DERIVED_TARGETS.get(head.target)
    return derive(out, batch) if derive is not None else batch[head.target]


def losses(
    out: Mapping[str, torch.Tensor], batch: Mapping[str, torch.Tensor], config: ModelConfig
) -> dict[str, torch.Tensor]:
    """Every loss term of the heads in `out` (unweighted, keyed by the head's weight name) and
    the weighted total."""
    weights = config.loss_weights
    terms: dict[str, torch.Tensor] = {}
    total = None
    for head in HEADS:
        if head.name not in out:  # an optional head this network does not have
            continue
        term = LOSS_KINDS[head.loss](out[head.name], _target(head, out, batch), batch, weights, head)
        terms[head.weight] = term
        weighted = getattr(weights, head.weight) * term
        total = weighted if total is None else total + weighted
    terms["total"] = total
    return terms


@torch.no_grad()
def teacher_targets(
    batch: Mapping[str, torch.Tensor], teacher: Mapping[str, torch.Tensor], share: float
) -> dict[str, torch.Tensor]:
    """The batch with each target moved `share` of the way to another network's prediction
    (knowledge distillation: a new network learns from the one it replaces as well as from the
    games). Distributions and classes blend with the teacher's softmax (a class target becomes
    a distribution, which the class loss takes as well), regressions with its values. A target
    shared by several heads follows the first of them (the policy, not the soft policy). Derived
    targets are left alone: they follow from the blended ones."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"teacher share {share}: want a fraction in [0, 1]")
    out = dict(batch)
    blended: set[str] = set()
    for head in HEADS:
        if head.target in blended or head.target in DERIVED_TARGETS or head.name not in teacher:
            continue
        blended.add(head.target)
        pred, target = teacher[head.name].float(), batch[head.target]
        if head.loss in ("distribution_ce", "soft_distribution_ce", "class_ce"):
            taught = F.softmax(pred, dim=-1)
            if head.loss == "class_ce":
                target = F.one_hot(target, pred.shape[-1]).float()
        else:
            taught = pred
        out[head.target] = (1.0 - share) * target + share * taught
    return out


@torch.no_grad()
def accuracy(out: Mapping[str, torch.Tensor], batch: Mapping[str, torch.Tensor]) -> dict[str, float]:
    full = batch["full_search"] > 0
    top1 = (out["policy_logits"].argmax(-1) == batch["policy"].argmax(-1)).float()
    value = (out["wdl_logits"].argmax(-1) == batch["outcome"]).float()
    return {
        "policy_top1": float(top1[full].mean()) if full.any() else 0.0,
        "value_accuracy": float(value.mean()),
    }
