"""Player specs, the text a user types for a player, shared by the arena, the engine
and the GUI: "random", "greedy", "uct:N", "best" (the newest shipped model), or a model
file with an optional visit count: "path/model.onnx[@visits=N]", "path/ckpt.pt[@visits=N]",
"path/engine.plan[@visits=N]" (a built TensorRT plan). The kind of a model file is told by
its suffix, as the inference factory tells it (popucom.infer.model_kind).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import _core
from .infer import factory as infer
from .infer.contract import Evaluator

DEFAULT_VISITS = 100
NETWORK_KINDS = ("onnx", "checkpoint", "plan")  # infer.model_kind's kinds


def is_bot(text: str) -> bool:
    """Whether `text` names a network-free bot (random, greedy, uct:N)."""
    return text in ("random", "greedy") or text.startswith("uct:")


@dataclass
class PlayerSpec:
    name: str
    kind: str  # "bot", or a model file's kind: "onnx" | "checkpoint" | "plan"
    source: str  # bot spec or file path
    visits: int = DEFAULT_VISITS

    @property
    def is_network(self) -> bool:
        return self.kind in NETWORK_KINDS

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        base, _, options = text.partition("@")
        visits = DEFAULT_VISITS
        if options:
            key, _, value = options.partition("=")
            if key != "visits" or not value.isdigit() or int(value) < 1:
                raise ValueError(f"player '{text}': options are @visits=N with N >= 1")
            visits = int(value)
        if is_bot(base):
            if options:
                raise ValueError(f"player '{text}': bots take no @visits (use uct:N for rollouts)")
            _core.Bot(base)  # validates the spec
            return cls(base, "bot", base)
        if base == "best":
            from .weights import newest_model, weights_dir

            newest = newest_model()
            if newest is None:
                raise ValueError(f"player 'best': no shipped model (popucom-<preset>-v<N>.onnx) in {weights_dir()}")
            base = str(newest)
        path = Path(base)
        try:
            kind = infer.model_kind(path)
        except ValueError:
            raise ValueError(
                f"unknown player '{text}' (want random, greedy, uct:N, best, a .onnx model, "
                "a .pt checkpoint or a TensorRT .plan)"
            ) from None
        if not path.exists():
            raise FileNotFoundError(f"player '{text}': no such file {path}")
        return cls(f"{path.stem}@{visits}", kind, str(path), visits)


def load_evaluator(spec: PlayerSpec, device: str = "cpu", threads: int = 1) -> Evaluator:
    """The network of a model player, through the one inference factory (popucom.infer)."""
    if not spec.is_network:
        raise ValueError(f"{spec.name} is not a network player")
    return infer.load_evaluator(spec.source, device=device, threads=threads)
