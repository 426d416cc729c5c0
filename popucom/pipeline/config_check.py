"""The range and meaning of every setting of a pipeline config, checked whenever one is made
(a preset, a run's config.json, a shipped sidecar, `--change`), as SearchParams checks the
search settings: a value that would fail hours into a run (a NaN rate, a null batch size, a
backend that names a path) or train silently on empty targets (no full searches, so no policy
targets) is refused at the door, every bad setting named at once.

Each setting declares its range once, beside its default (popucom/setting.py: field metadata
of the config classes); pipeline/config.py gathers them by dotted name (as in `--change`), and check_of()
turns each into its check. The network's shape (ModelConfig) and self-play's search overrides
(SearchParams) check themselves.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping

from .. import _core
from .. import setting as declared
from ..setting import MAX_COUNT, Rule

# The settings as Settings.to_dict() has them, or as a JSON file does (lists for tuples).
Settings = Mapping[str, object]
# (value, all the settings) -> what the setting wants, or None when the value is fine
Check = Callable[[object, Settings], str | None]

# The bounds the declarations name (popucom/setting.py): opening and random plies that leave
# a move to play.
NAMED_BOUNDS = {declared.OPENING_PLIES: 2 * _core.MOVES_PER_PLAYER - 1}


class ConfigError(ValueError):
    """A setting of a pipeline config out of its range or meaning."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def flag(value: object, settings: Settings) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def one_of(options: tuple[str, ...]) -> Check:
    def check(value: object, settings: Settings) -> str | None:
        return None if value in options else f"one of {', '.join(options)}"

    return check


def _bot_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return "not a text"
    try:
        _core.Bot(value)
    except ValueError as e:
        return str(e)
    return None


def bot(value: object, settings: Settings) -> str | None:
    """A network-free bot (random, greedy, uct:N): the yardsticks must not move between runs."""
    problem = _bot_problem(value)
    return None if problem is None else f"a network-free bot: random, greedy or uct:N ({problem})"


def bots(value: object, settings: Settings) -> str | None:
    if not isinstance(value, (tuple, list)) or not value or any(_bot_problem(v) for v in value):
        return "one or more network-free bots (random, greedy, uct:N)"
    return None


def bot_pairs(value: object, settings: Settings) -> str | None:
    def fine(pair: object) -> bool:
        return (
            isinstance(pair, (tuple, list))
            and len(pair) == 2
            and pair[0] != pair[1]
            and not any(_bot_problem(b) for b in pair)
        )

    if isinstance(value, (tuple, list)) and value and all(fine(pair) for pair in value):
        return None
    return "one or more pairs of two different network-free bots"


def anchor(value: object, settings: Settings) -> str | None:
    """The ladder's anchor must play a calibration game, or the refit has nothing to pin."""
    problem = bot(value, settings)
    if problem:
        return problem
    calibration = _setting(settings, "ladder.calibration")
    players = {b for pair in calibration for b in pair} if bot_pairs(calibration, settings) is None else set()
    return None if value in players else f"a player of a calibration game ({', '.join(sorted(players))})"


def betas(value: object, settings: Settings) -> str | None:
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(_is_real(b) and 0 <= b < 1 for b in value):
        return None
    return "two finite numbers >= 0 and < 1"


def even(low: int) -> Check:
    def check(value: object, settings: Settings) -> str | None:
        if _is_int(value) and value >= low and value % 2 == 0:
            return None
        return f"an even whole number >= {low} (each opening is played with both colours)"

    return check


def _setting(settings: Settings, key: str) -> object:
    node: object = settings
    for part in key.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    return node


def _bound(end: float | str, settings: Settings, declared: Mapping[str, Rule]) -> float:
    """A bound's value: a number, a named bound, or another setting's value where that is valid
    (else that setting's own upper bound, so that its own rule names the problem)."""
    if not isinstance(end, str):
        return end
    if end in NAMED_BOUNDS:
        return NAMED_BOUNDS[end]
    value = _setting(settings, end)
    other = declared[end]
    if check_of(other, declared)(value, settings) is None and _is_real(value):
        return value
    fallback = other.high if not isinstance(other.high, str) else math.inf
    return MAX_COUNT if fallback == math.inf and other.kind == "whole" else fallback


def _whole(rule: Rule, declared: Mapping[str, Rule]) -> Check:
    def check(value: object, settings: Settings) -> str | None:
        top = _bound(rule.high, settings, declared)
        if rule.high_open:
            top -= 1
        if _is_int(value) and rule.low <= value <= top:
            return None
        return f"a whole number from {rule.low} to {top}{rule.why}"

    return check


def _number(rule: Rule, declared: Mapping[str, Rule]) -> Check:
    def check(value: object, settings: Settings) -> str | None:
        high = _bound(rule.high, settings, declared)
        if _is_real(value):
            above = value > rule.low if rule.low_open else value >= rule.low
            below = value < high if rule.high_open else value <= high
            if above and below:
                return None
        if isinstance(rule.high, str) and rule.high not in NAMED_BOUNDS:
            return f"a finite number {'below' if rule.high_open else 'at most'} {rule.high}{rule.why}"
        bounds = [f"{'>' if rule.low_open else '>='} {rule.low:g}"] if math.isfinite(rule.low) else []
        if math.isfinite(high):
            bounds.append(f"{'<' if rule.high_open else '<='} {high:g}")
        return " ".join(["a finite number", " and ".join(bounds)]).strip() + rule.why

    return check


def check_of(rule: Rule, declared: Mapping[str, Rule]) -> Check:
    """The check a declared rule stands for (`declared`: every rule, for bounds that name a setting)."""
    if rule.kind == "whole":
        return _whole(rule, declared)
    if rule.kind == "number":
        return _number(rule, declared)
    if rule.kind == "one_of":
        return one_of(rule.options)
    if rule.kind == "even":
        return even(int(rule.low))
    named = {"flag": flag, "bot": bot, "bots": bots, "bot_pairs": bot_pairs, "anchor": anchor, "betas": betas}
    return named[rule.kind]


def check_settings(settings: Settings, declared: Mapping[str, Rule]) -> None:
    """Raises ConfigError naming every setting out of its range, with what it wants. A setting
    that is absent is not checked here: an optional section that is off (ladder, warm_start:
    null), or a file from before the setting, whose default the config then checks."""
    problems = []
    for key, rule in declared.items():
        check = check_of(rule, declared)
        section, _, leaf = key.rpartition(".")
        node = _setting(settings, section) if section else settings
        if not isinstance(node, Mapping) or leaf not in node:
            continue
        wanted = check(node[leaf], settings)
        if wanted:
            problems.append(f"{key} must be {wanted}, got {node[leaf]!r:.60}")
    if problems:
        raise ConfigError("; ".join(problems))
