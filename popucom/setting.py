"""A setting of a pipeline config declared once: its default and its range, as dataclass field
metadata (`batch_size: int = setting(256, whole(1, 1 << 16))`), in the manner of
csrc/search/params.h's X-macro for the search settings. pipeline/config_check.py turns the
ranges into the checks every config passes (a preset, a run's config.json, a shipped sidecar,
`--change`), and the tests draw their bad values from them. Plain data and the standard library
only: the config modules that declare settings are read wherever a run's config is.

A bound may name another setting by its dotted name (fast_visits at most selfplay.full_visits);
the check then reads that setting's value, where it is valid.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

MAX_COUNT = 1 << 40  # rows, steps: far beyond any run, below any overflow
MAX_SEED = 2**63 - 1
# A bound named here, not a number, where its value comes from the compiled core (which the
# config modules of the arena and training do not load): config_check.NAMED_BOUNDS has it.
OPENING_PLIES = "the most opening plies"


@dataclass(frozen=True)
class Rule:
    """What a setting's value must be. kind: whole | number | flag | one_of | bot | bots |
    bot_pairs | anchor | betas | even; `low`/`high` bound whole numbers and numbers, each end
    open or closed (`high` may be a text: another setting's dotted name, or a named bound such
    as OPENING_PLIES); `options` for one_of; `why` is added to the message."""

    kind: str
    low: float | str = -math.inf
    high: float | str = math.inf
    low_open: bool = False
    high_open: bool = False
    options: tuple[str, ...] = ()
    why: str = ""


def whole(low: int, high: int | str = MAX_COUNT, why: str = "", *, high_open: bool = False) -> Rule:
    """A whole number in [low, high] (or [low, high) with high_open)."""
    return Rule("whole", low, high, high_open=high_open, why=why)


def number(
    low: float = -math.inf, high: float | str = math.inf, low_open: bool = False, high_open: bool = False, why: str = ""
) -> Rule:
    """A finite number between `low` and `high`, each end open or closed."""
    return Rule("number", low, high, low_open, high_open, why=why)


def one_of(options: tuple[str, ...]) -> Rule:
    return Rule("one_of", options=tuple(options))


def even(low: int) -> Rule:
    """An even whole number >= low (each opening is played with both colours)."""
    return Rule("even", low)


FLAG = Rule("flag")
BOT = Rule("bot")  # a network-free bot: random, greedy or uct:N
BOTS = Rule("bots")  # one or more of them
BOT_PAIRS = Rule("bot_pairs")  # pairs of two different ones
ANCHOR = Rule("anchor")  # a bot that plays a calibration game (ladder.calibration)
BETAS = Rule("betas")  # AdamW's two betas, each in [0, 1)
SEED = whole(0, MAX_SEED)


def setting(default: Any = dataclasses.MISSING, rule: Rule | None = None, *, factory: Any = dataclasses.MISSING) -> Any:
    """A dataclass field with its range (`rule`) in its metadata; `factory` for a mutable default."""
    metadata = {"rule": rule} if rule is not None else {}
    if factory is not dataclasses.MISSING:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def section(factory: Any, default_none: bool = False) -> Any:
    """A field holding another config of settings (`factory` its class), checked setting by
    setting under its own name; None (an optional section that is off) when default_none."""
    metadata = {"section": factory}
    if default_none:
        return field(default=None, metadata=metadata)
    return field(default_factory=factory, metadata=metadata)


def rules(config_class: type, prefix: str = "") -> dict[str, Rule]:
    """Every declared setting of `config_class` and its sections, by dotted name."""
    found: dict[str, Rule] = {}
    for f in dataclasses.fields(config_class):
        if "rule" in f.metadata:
            found[prefix + f.name] = f.metadata["rule"]
        elif "section" in f.metadata:
            found.update(rules(f.metadata["section"], f"{prefix}{f.name}."))
    return found
