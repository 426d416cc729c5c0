"""Ranges of user-given values, checked once in Python before they reach the core.

The core takes komi as any 32-bit integer, but a komi beyond the NUM_SQUARES (81) floors
of the board decides every game before it starts and feeds the network a komi plane far
outside anything it was trained on; time limits must be finite and positive or a
search never ends; a thread count far beyond any machine's cores makes a runtime's
thread pool fail inside it (ONNX Runtime crashes) instead of refusing.
"""

from __future__ import annotations

import argparse
import importlib
import math
import numbers
import re
from collections.abc import Callable

from . import _core

MAX_KOMI = _core.NUM_SQUARES  # |komi| above the number of floors decides every game by komi alone
MAX_SECONDS = 24 * 3600.0
# Numbers written as text (komi, a record's analyses): ASCII decimal notation and nothing else,
# the grammar web/src/records.js reads too. float() and int() alone would also take "1_0",
# Arabic-Indic digits, "infinity" and non-breaking spaces, which the page refuses.
DECIMAL_TEXT = re.compile(r"[ \t\r\n]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[ \t\r\n]*", re.ASCII)
WHOLE_TEXT = re.compile(r"[ \t\r\n]*[-+]?\d+[ \t\r\n]*", re.ASCII)


def parse_decimal(text: str) -> float:
    """`text` in ASCII decimal notation as a float (inf only by overflow, e.g. 1e400); ValueError otherwise."""
    if not DECIMAL_TEXT.fullmatch(text):
        raise ValueError(f"not a decimal number: {text[:40]!r}")
    return float(text)


def parse_whole(text: str) -> int:
    """`text` as ASCII digits with an optional sign as an int; ValueError otherwise."""
    if not WHOLE_TEXT.fullmatch(text):
        raise ValueError(f"not a whole number: {text[:40]!r}")
    return int(text)


def check_komi(value: object, what: str = "komi") -> int:
    """`value` (an int, float or text) as a whole-number komi in [-MAX_KOMI, MAX_KOMI]; ValueError otherwise."""
    rule = f"{what} must be a whole number from {-MAX_KOMI} to {MAX_KOMI} (the board has {MAX_KOMI} floors)"
    if isinstance(value, bool):
        raise ValueError(f"{rule}, got {value!r}")
    try:
        number = parse_decimal(value) if isinstance(value, str) else value
        if not isinstance(number, numbers.Real) or not math.isfinite(number):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"{rule}, got {str(value)[:40]!r}") from None
    if number != int(number) or abs(number) > MAX_KOMI:
        raise ValueError(f"{rule}, got {str(value)[:40]}")
    return int(number)


def check_seconds(value: float | None, what: str = "seconds") -> float | None:
    """A time limit: None (no limit) or finite, > 0 and at most a day; ValueError otherwise."""
    if value is None:
        return None
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not (number and math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise ValueError(f"{what} must be a number of seconds > 0 and at most {MAX_SECONDS:.0f}, got {value}")
    return float(value)


# A time budget ends a search only once its root has this many visits: the root's own and one
# child's. Before that the tree has chosen nothing, and the move played would be the first legal one.
MIN_TIMED_VISITS = 2


# A tree of this many visits takes about a gigabyte (a node with its edges is up to ~800 bytes),
# and the core counts visits in 32 bits: a larger budget would never finish or never fit.
MAX_VISITS = 1_000_000


def check_visits(value: object, what: str = "visits") -> int | None:
    """A visit budget: None (no limit) or a whole number in [1, MAX_VISITS]; ValueError otherwise."""
    if value is None:
        return None
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not (whole and 1 <= value <= MAX_VISITS):
        raise ValueError(f"{what} must be a whole number from 1 to {MAX_VISITS}, got {shown_value(value)}")
    return int(value)


def shown_value(value: object) -> str:
    """`value` for an error message: short, and without printing a huge integer in full."""
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 64:
        return f"a number of about {round(abs(int(value)).bit_length() * math.log10(2))} digits"
    return repr(value)[:40]


# Threads beyond the cores only take turns, so this is far above any machine's core count and
# far below the counts at which a runtime's thread pool fails instead of refusing.
MAX_THREADS = 4096


def check_threads(value: object, what: str = "threads", lowest: int = 0) -> int:
    """A thread count: a whole number in [lowest, MAX_THREADS] (0, where allowed, means every
    core); ValueError otherwise."""
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not (whole and lowest <= value <= MAX_THREADS):
        every = " (0: every core)" if lowest == 0 else ""
        raise ValueError(
            f"{what} must be a whole number from {lowest} to {MAX_THREADS}{every}, got {shown_value(value)}"
        )
    return int(value)


def threads_argument(lowest: int = 0) -> Callable[[str], int]:
    """An argparse `type` for a thread-count option: a count out of range is an argparse error
    (usage and message, exit 2) before anything loads."""

    def parse(text: str) -> int:
        try:
            value: object = int(text)
        except ValueError:
            value = text  # not a whole number: check_threads says what it wants
        try:
            return check_threads(value, "the thread count", lowest)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return parse


# --- the names a flag accepts ---------------------------------------------------------------


class PresetNames:
    """The names of a preset table, read on first use: argparse checks a given --preset against
    them and --help lists them, while building the parser imports nothing (the tables' modules
    load the compiled core and check every preset)."""

    def __init__(self, module: str, table: str) -> None:
        self.module, self.table = module, table

    def names(self) -> list[str]:
        return sorted(getattr(importlib.import_module(self.module), self.table))

    def __contains__(self, name: object) -> bool:
        return name in self.names()

    def __iter__(self):
        return iter(self.names())


PIPELINE_PRESETS = PresetNames("popucom.pipeline.config", "PIPELINE_PRESETS")
MODEL_PRESETS = PresetNames("popucom.nn.config", "PRESETS")
BACKENDS = PresetNames("popucom.infer.backends", "BACKENDS")
