"""Player specs, the text a user types for a player, shared by the arena, the engine
and the GUI: "random", "greedy", "uct:N", "best" (the newest shipped model, as its
checkpoint when one is shipped: popucom.weights.newest_for_cpu), or a model
file with options: "path/model.onnx[@OPTIONS]", "path/ckpt.pt[@OPTIONS]",
"path/engine.plan[@OPTIONS]" (a built TensorRT plan), "path/model.pcnet[@OPTIONS]" (a network
file on the native forward, popucom.nn.native_file). The kind of a model file is told by
its suffix, as the inference factory tells it (popucom.infer.model_kind).

OPTIONS are comma-separated KEY=VALUE: `visits=N`, and any search setting of
popucom._core.SearchParams (`best@visits=200,score_utility_weight=0.2`), so a play
setting can be tried in the arena without a code change. Settings other than visits
become part of the player's name, so records of different settings never mix.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import _core
from .infer import factory as infer
from .infer.backends import EXPORTED_BACKENDS
from .infer.choice import exported_beside
from .infer.contract import Evaluator
from .search.params import SearchOverrides, search_params

DEFAULT_VISITS = 100
NETWORK_KINDS = ("onnx", "checkpoint", "plan", "network")  # infer.model_kind's kinds


def is_bot(text: str) -> bool:
    """Whether `text` names a network-free bot (random, greedy, uct:N)."""
    return text in ("random", "greedy") or text.startswith("uct:")


@dataclass
class PlayerSpec:
    name: str
    kind: str  # "bot", or a model file's kind: "onnx" | "checkpoint" | "plan"
    source: str  # bot spec or file path
    visits: int = DEFAULT_VISITS
    search: SearchOverrides = field(default_factory=dict)
    visits_given: bool = False  # the text said @visits=N (a caller's default must not replace it)

    @property
    def is_network(self) -> bool:
        return self.kind in NETWORK_KINDS

    def search_params(self) -> _core.SearchParams:
        """The core's default search settings with this spec's overrides applied."""
        return search_params(self.search)

    def with_default_visits(self, visits: int) -> PlayerSpec:
        """This model player searching `visits` a move, unless its text gave @visits=N."""
        if self.visits_given or not self.is_network:
            return self
        return dataclasses.replace(self, name=model_player_name(self.source, visits, self.search), visits=visits)

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        base, _, options = text.partition("@")
        search = parse_search_options(options, f"player '{text}'") if options else {}
        visits_given = "visits" in search
        visits = int(search.pop("visits", DEFAULT_VISITS))
        if is_bot(base):
            if options:
                raise ValueError(f"player '{text}': bots take no @options (use uct:N for rollouts)")
            _core.Bot(base)  # validates the spec
            return cls(base, "bot", base)
        if base == "best":
            from .weights import newest_for_cpu, weights_dir, where_to_find

            newest = newest_for_cpu()  # its checkpoint when shipped: auto picks the fastest path from it
            if newest is None:
                raise ValueError(
                    f"player 'best': no shipped model (popucom-<preset>-v<N>.onnx) in {weights_dir()}: "
                    + where_to_find("one")
                )
            base = str(newest)
        path = Path(base)
        try:
            kind = infer.model_kind(path)
        except ValueError:
            raise ValueError(
                f"unknown player '{text}' (want random, greedy, uct:N, best, a .onnx model, "
                "a .pt checkpoint, a TensorRT .plan or a .pcnet network file)"
            ) from None
        if not path.exists():
            raise FileNotFoundError(f"player '{text}': no such file {path}")
        return cls(model_player_name(path, visits, search), kind, str(path), visits, search, visits_given)


def model_player_name(path: str | Path, visits: int, search: SearchOverrides) -> str:
    """A model player's name: its file's stem, visits and search overrides (model@200,KEY=V)."""
    return f"{Path(path).stem}@{visits}{search_suffix(search)}"


def parse_search_options(text: str, context: str) -> SearchOverrides:
    """`visits=N,KEY=VALUE,...` as a dict: visits (an int >= 1) and SearchParams fields,
    each value parsed as its field's type. Raises ValueError naming the bad option."""
    defaults = _core.SearchParams()
    known = ["visits", *_core.SearchParams.fields]
    options: SearchOverrides = {}
    # A second '@' is read as a separator here only to name what is wrong: an option given
    # twice (model@visits=5@visits=6) is named as such, any other use of '@' is refused below.
    for item in re.split("[,@]", text):
        key, eq, value = item.partition("=")
        if not eq or key not in known:
            raise ValueError(f"{context}: bad option '{item}' (want KEY=VALUE with KEY one of {', '.join(known)})")
        if key in options:
            raise ValueError(f"{context}: option '{key}' given twice")
        options[key] = _parse_value(key, value, 1 if key == "visits" else getattr(defaults, key), context)
    if "@" in text:
        raise ValueError(f"{context}: options are separated by commas (MODEL@visits=N,KEY=VALUE), not by a second '@'")
    if options.get("visits", 1) < 1:
        raise ValueError(f"{context}: visits must be at least 1, got {options['visits']}")
    search_params({key: value for key, value in options.items() if key != "visits"}, context)
    return options


def _parse_value(key: str, value: str, like: float | int | bool, context: str) -> float | int | bool:
    """`value` as the type of `like` (a field's default): bool, a 32-bit int, or a finite float."""
    if isinstance(like, bool):
        if value.lower() not in ("true", "false", "1", "0"):
            raise ValueError(f"{context}: option {key}={value} is not a bool (true/false)")
        return value.lower() in ("true", "1")
    try:
        number = int(value) if isinstance(like, int) else float(value)
    except ValueError:
        raise ValueError(f"{context}: option {key}={value} is not a {type(like).__name__}") from None
    if isinstance(number, int) and not -(2**31) <= number < 2**31:
        raise ValueError(f"{context}: option {key}={value} does not fit the core's 32-bit int")
    if not math.isfinite(number):
        raise ValueError(f"{context}: option {key}={value} is not a finite number")
    return number


def search_suffix(overrides: SearchOverrides) -> str:
    """The part of a player's name that tells its search overrides apart (empty if none)."""
    return "".join(f",{key}={value}" for key, value in overrides.items())


def load_evaluator(spec: PlayerSpec, device: str = "cpu", threads: int = 1, backend: str = "auto") -> Evaluator:
    """The network of a model player, through the one inference factory (popucom.infer), on
    `backend` (`auto`: the fastest available; its describe() names the one). A checkpoint on a
    backend that runs exported models runs the exported model shipped beside it (NAME.onnx, as
    `best` and the levels ship one); without one the factory says how to export it."""
    if not spec.is_network:
        raise ValueError(f"{spec.name} is not a network player")
    source = Path(spec.source)
    if backend in EXPORTED_BACKENDS and spec.kind == "checkpoint":
        source = exported_beside(source) or source
    return infer.load_evaluator(source, backend=backend, device=device, threads=threads)
