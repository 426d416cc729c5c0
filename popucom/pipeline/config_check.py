"""The range and meaning of every setting of a pipeline config, checked whenever one is made
(a preset, a run's config.json, a shipped sidecar, `--change`), as SearchParams checks the
search settings: a value that would fail hours into a run (a NaN rate, a null batch size, a
backend that names a path) or train silently on empty targets (no full searches, so no policy
targets) is refused at the door, every bad setting named at once.

RULES maps each setting's dotted name (as in `--change`) to its check. The network's shape
(ModelConfig) and self-play's search overrides (SearchParams) check themselves.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping

from .. import _core
from ..infer.backends import BACKENDS
from ..limits import MAX_THREADS

# The settings as Settings.to_dict() has them, or as a JSON file does (lists for tuples).
Settings = Mapping[str, object]
# (value, all the settings) -> what the setting wants, or None when the value is fine
Check = Callable[[object, Settings], str | None]

DEVICES = ("cpu", "cuda")
MAX_PLIES = 2 * _core.MOVES_PER_PLAYER - 1  # opening and random plies that leave a move to play
MAX_SEED = 2**63 - 1
MAX_COUNT = 1 << 40  # rows, steps: far beyond any run, below any overflow


class ConfigError(ValueError):
    """A setting of a pipeline config out of its range or meaning."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def whole(low: int, high: int | Callable[[Settings], int] = MAX_COUNT, why: str = "") -> Check:
    """A whole number in [low, high]; `high` may depend on the config (fast_visits <= full_visits)."""

    def check(value: object, settings: Settings) -> str | None:
        top = high(settings) if callable(high) else high
        if _is_int(value) and low <= value <= top:
            return None
        return f"a whole number from {low} to {top}{why}"

    return check


def number(low: float, high: float = math.inf, low_open: bool = False, high_open: bool = False, why: str = "") -> Check:
    """A finite number between `low` and `high`, each end open or closed."""

    def check(value: object, settings: Settings) -> str | None:
        if _is_real(value):
            above = value > low if low_open else value >= low
            below = value < high if high_open else value <= high
            if above and below:
                return None
        bounds = [f"{'>' if low_open else '>='} {low:g}"] if math.isfinite(low) else []
        if math.isfinite(high):
            bounds.append(f"{'<' if high_open else '<='} {high:g}")
        return " ".join(["a finite number", " and ".join(bounds)]).strip() + why

    return check


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


def _full_visits(settings: Settings) -> int:
    """fast_visits' ceiling: full_visits, or full_visits' own when that is wrong (named by its rule)."""
    full = _setting(settings, "selfplay.full_visits")
    return full if _is_int(full) and full >= 1 else 1_000_000


def _below_total_steps(settings: Settings) -> int:
    total = _setting(settings, "train.total_steps")
    return total - 1 if _is_int(total) and total >= 1 else MAX_COUNT


def below_elo1(value: object, settings: Settings) -> str | None:
    problem = number(-math.inf)(value, settings)
    elo1 = _setting(settings, "evaluation.sprt_elo1")
    if problem or not _is_real(elo1):
        return problem
    return None if value < elo1 else "a finite number below evaluation.sprt_elo1"


RULES: dict[str, Check] = {
    "selfplay.concurrent_games": whole(1, 1 << 16),
    "selfplay.full_visits": whole(1, 1_000_000),
    "selfplay.fast_visits": whole(1, _full_visits, " (selfplay.full_visits)"),
    "selfplay.full_search_prob": number(0, 1, low_open=True, why=" (at 0 no move is a full search: no policy targets)"),
    "selfplay.temperature_start": number(0, 10),
    "selfplay.temperature_end": number(0, 10),
    "selfplay.temperature_half_life": number(0, 1000, low_open=True),
    "selfplay.max_random_plies": whole(0, MAX_PLIES),
    "selfplay.root_search": one_of(("puct", "gumbel")),
    "selfplay.cache_mb": number(0, 1 << 20, low_open=True),
    "selfplay.search_threads": whole(1, 1024),
    "selfplay.games_per_chunk": whole(1, 1 << 20),
    "train.batch_size": whole(1, 1 << 16),
    "train.lr": number(0, 1, low_open=True),
    "train.warmup_steps": whole(0, _below_total_steps, " (below train.total_steps)"),
    "train.total_steps": whole(1),
    "train.min_lr_ratio": number(0, 1),
    "train.weight_decay": number(0, 10),
    "train.adam_betas": betas,
    "train.grad_clip": number(0, low_open=True),
    "train.window_samples": whole(1),
    "train.val_fraction": number(0, 0.5),
    "train.seed": whole(0, MAX_SEED),
    "train.compile": flag,
    "train.cpu_bf16": flag,
    "evaluation.openings": whole(1, 100_000),
    "evaluation.opening_plies": whole(0, MAX_PLIES),
    "evaluation.visits": whole(1, 1_000_000),
    "evaluation.baseline": bot,
    "evaluation.gating": flag,
    "evaluation.every": whole(1, 1_000_000),
    "evaluation.sprt_elo0": below_elo1,
    "evaluation.sprt_elo1": number(-math.inf),
    "evaluation.sprt_alpha": number(0, 1, low_open=True, high_open=True),
    "evaluation.sprt_beta": number(0, 1, low_open=True, high_open=True),
    "ladder.visits": whole(1, 1_000_000),
    "ladder.games": even(2),
    "ladder.opponents": bots,
    "ladder.opening_plies": whole(0, MAX_PLIES),
    "ladder.seed": whole(0, MAX_SEED),
    "ladder.anchor": anchor,
    "ladder.calibration": bot_pairs,
    "ladder.calibration_games": even(2),
    "ladder.every_minutes": number(0, 1e6),
    "ladder.threads": whole(1, 1024),
    "warm_start.bot": bot,
    "warm_start.games": whole(1, 10_000_000),
    "warm_start.epochs": number(0, 1000, low_open=True),
    "games_per_iteration": whole(1, 1 << 30),
    "steps_per_iteration": whole(1),
    "replay_ratio": number(0, 1000),
    "min_steps_per_iteration": whole(1),
    "window_min_samples": whole(0),
    "window_exponent": number(0, 1, low_open=True),
    "window_growth": number(0, 100),
    "min_samples_to_train": whole(0),
    "backend": one_of(BACKENDS),
    "device": one_of(DEVICES),
    "inference_threads": whole(0, MAX_THREADS, " (0: all cores)"),
    "seed": whole(0, MAX_SEED),
}


def check_settings(settings: Settings) -> None:
    """Raises ConfigError naming every setting out of its range, with what it wants. A setting
    that is absent is not checked here: an optional section that is off (ladder, warm_start:
    null), or a file from before the setting, whose default the config then checks."""
    problems = []
    for key, check in RULES.items():
        section, _, leaf = key.rpartition(".")
        node = _setting(settings, section) if section else settings
        if not isinstance(node, Mapping) or leaf not in node:
            continue
        wanted = check(node[leaf], settings)
        if wanted:
            problems.append(f"{key} must be {wanted}, got {node[leaf]!r:.60}")
    if problems:
        raise ConfigError("; ".join(problems))
