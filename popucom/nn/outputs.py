"""The network's outputs, named once: the model, the export, the inference backends and the
trainer's loss loop all read these tables. Nothing here imports torch.

HEADS: what `PopucomNet.forward` returns, a dict keyed by head name, all from the side to
move. Each head names its per-position shape and how the trainer scores it: the batch field
it is compared with (`target`, a field of popucom.train.window.Batch), the loss kind (a key
of popucom.train.losses.LOSS_KINDS) and the `LossWeights` field that weights it, which is
also the loss term's name in the metrics (`loss/<weight>`).

OUTPUTS: what a deployed model returns (ONNX, TensorRT plan, the torch evaluator), in this
order, each computed from one head (optionally through an activation). These are the ONNX
output names of every exported model, the shipped ones included: renaming one is a model
format change (`check_metadata` in export.py refuses the other names).

Adding a head touches: its layer in model.py (forward returns it under its name), a row
here, its target in Batch (and the shards), its weight in LossWeights; plus a row in OUTPUTS
if the search or the GUI should see it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .. import _core

WDL = ("win", "draw", "loss")  # the classes of the value head, in order


@dataclass(frozen=True)
class Head:
    name: str  # the key in forward()'s dict
    shape: tuple[int, ...]  # per position; () for a scalar
    target: str  # the Batch field the loss compares it with
    loss: str  # a key of popucom.train.losses.LOSS_KINDS
    weight: str  # the LossWeights field weighting the term, and the term's name
    optional: bool = False  # only in networks whose config has it (see the module docstring)


HEADS: tuple[Head, ...] = (
    # logits over the squares, illegal squares masked
    Head("policy_logits", (_core.NUM_SQUARES,), target="policy", loss="distribution_ce", weight="policy"),
    # KataGo's auxiliary soft policy: the same target raised to 1/4
    Head(
        "soft_policy_logits", (_core.NUM_SQUARES,), target="policy", loss="soft_distribution_ce", weight="soft_policy"
    ),
    # win/draw/loss logits
    Head("wdl_logits", (len(WDL),), target="outcome", loss="class_ce", weight="value"),
    # the expected final margin in floors (komi included)
    Head("score", (), target="score", loss="huber", weight="score"),
    # the final floor ownership per square in [-1, 1]
    Head("ownership", (_core.NUM_SQUARES,), target="ownership", loss="mse", weight="ownership"),
    # the expected squared gap between the value head's win - loss and the short-term value
    # (data/short_term.py), >= 0: the search weights a playout by its inverse
    Head("value_error", (), target="value_squared_error", loss="huber", weight="value_error", optional=True),
)
HEAD_NAMES = tuple(h.name for h in HEADS)
HEADS_BY_NAME = {h.name: h for h in HEADS}


@dataclass(frozen=True)
class Output:
    name: str  # the ONNX / TensorRT output tensor name
    head: str  # the head it is computed from
    activation: str | None = None  # None (as is) or "softmax" over the last axis

    @property
    def shape(self) -> tuple[int, ...]:
        """Per position (the activations keep the head's shape)."""
        return HEADS_BY_NAME[self.head].shape


OUTPUTS: tuple[Output, ...] = (
    Output("policy_logits", "policy_logits"),
    Output("wdl", "wdl_logits", activation="softmax"),  # probabilities
    Output("score", "score"),
    Output("ownership", "ownership"),
    Output("value_error", "value_error"),
)
OUTPUT_NAMES = tuple(o.name for o in OUTPUTS)
OUTPUTS_BY_NAME = {o.name: o for o in OUTPUTS}
OPTIONAL_OUTPUT_NAMES = tuple(o.name for o in OUTPUTS if HEADS_BY_NAME[o.head].optional)


def model_outputs(head_names: Iterable[str]) -> tuple[Output, ...]:
    """The outputs of a network with these heads, in OUTPUTS order: every output of a head
    it has (a network without an optional head lacks that head's output)."""
    heads = set(head_names)
    return tuple(o for o in OUTPUTS if o.head in heads)


def check_output_names(names: Sequence[str], where: str) -> tuple[str, ...]:
    """`names` if they are OUTPUT_NAMES, in order, less some optional ones; else ValueError."""
    names = tuple(names)
    allowed = [n for n in OUTPUT_NAMES if n in names or n not in OPTIONAL_OUTPUT_NAMES]
    if list(names) != allowed:
        raise ValueError(
            f"{where} has outputs '{','.join(names)}', expected '{','.join(OUTPUT_NAMES)}' "
            f"(of which {', '.join(OPTIONAL_OUTPUT_NAMES)} may be absent)"
        )
    return names
