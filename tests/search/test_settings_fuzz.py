"""The search settings fuzzer: every SearchParams field at its ends, inside its range and
several at their ends at once, against a hostile but finite network, on ordinary positions
and on positions with one or two legal moves.

Each drawn setting enters as a user types it, a player spec (`MODEL@visits=N,FIELD=VALUE`),
and searches through one of the two paths that play: the engine's and the GUI's session
(Player.session, a GameSearch under a time budget) or the batched search of the arena and
self-play (Player.many_games, two games, the root modes drawn, the solves under a deadline).
Either way the move is legal, no more leaves are evaluated than the visit budget lets the
batches gather, every reported statistic is finite and in its range, and the search ends
within its time budget. A setting outside its range is refused with a ValueError naming the
field, and nothing else is raised.

The bounds are the validator's: Python sees the field list (SearchParams.fields) but not the
X-macro's bounds (csrc/search/params.h), so `validator_bounds` finds them by bisecting what
SearchParams.validate() accepts, the check every entry point (player specs, the pipeline's
--change, the web app) applies. A new field is fuzzed without touching this file.

The examples run in-process, so a crash (SIGSEGV) in the core ends the test run with
faulthandler's trace and no example, and a loop in the core that never checks its deadline is
cut by pytest-timeout; `-s --hypothesis-verbosity=verbose` prints each example's draws before
it runs, the last of them the culprit. A search that ends late, or not until the watchdog
stops it, fails its example as any other property does.
"""

from __future__ import annotations

import math
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from popucom import Color, Position, _core
from popucom.infer import EvalOutput, TinyEvaluator
from popucom.player import Player
from popucom.player_spec import PlayerSpec

FLOAT32_MAX = float(np.finfo(np.float32).max)
FLOAT64_MAX = float(np.finfo(np.float64).max)
INT32 = (-(2**31), 2**31 - 1)

# The time a search may run past its budget: one network batch of a fake network, the
# snapshot, and a loaded CI machine's scheduling. A hang is many times this.
OVERRUN_S = 5.0
# Past this the watchdog ends the search (stop and interrupt), so a search that does not end
# by itself fails the example instead of hanging the run.
WATCHDOG_S = 30.0


# --- the bounds, as the validator enforces them -------------------------------------------


def _ordinal(x: float) -> int:
    """`x`'s place among the doubles: consecutive doubles have consecutive ordinals."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _from_ordinal(k: int) -> float:
    bits = k if k >= 0 else (-k) | -(2**63)
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def accepted(name: str, value: float | int | bool) -> bool:
    """Whether the validator accepts `value` for field `name`, the others at their defaults."""
    params = _core.SearchParams()
    setattr(params, name, value)
    try:
        params.validate()
    except ValueError:
        return False
    return True


def _last_accepted(ok: int, refused: int, accepts) -> int:
    """Bisection between an accepted point and a refused one: the last accepted point."""
    while abs(refused - ok) > 1:
        middle = (ok + refused) // 2
        if accepts(middle):
            ok = middle
        else:
            refused = middle
    return ok


@dataclass(frozen=True)
class Bounds:
    name: str
    kind: type  # bool, int or float: the field's type
    lowest: float | int | bool
    highest: float | int | bool
    default: float | int | bool


def validator_bounds(name: str) -> Bounds:
    """The inclusive range the validator accepts for field `name`, found by bisection from its
    default (accepted) toward the type's extremes (an extreme it accepts is the bound)."""
    default = getattr(_core.SearchParams(), name)
    if isinstance(default, bool):
        return Bounds(name, bool, False, True, default)
    if isinstance(default, int):
        ends = [e if accepted(name, e) else _last_accepted(default, e, lambda v: accepted(name, v)) for e in INT32]
        return Bounds(name, int, ends[0], ends[1], default)

    def accepts(k: int) -> bool:
        return accepted(name, _from_ordinal(k))

    ends = [_ordinal(-FLOAT64_MAX), _ordinal(FLOAT64_MAX)]
    ends = [e if accepts(e) else _last_accepted(_ordinal(default), e, accepts) for e in ends]
    return Bounds(name, float, _from_ordinal(ends[0]), _from_ordinal(ends[1]), default)


BOUNDS = {name: validator_bounds(name) for name in _core.SearchParams.fields}


def test_the_probed_bounds_are_the_validators() -> None:
    """Each bound is accepted and the next value past it refused, and a default lies inside."""
    for b in BOUNDS.values():
        assert b.lowest <= b.default <= b.highest, b
        if b.kind is bool:
            assert accepted(b.name, False) and accepted(b.name, True)
            continue
        assert accepted(b.name, b.lowest) and accepted(b.name, b.highest), b
        for outside in _just_outside(b):
            assert not accepted(b.name, outside), (b, outside)
    # Every range stops short of its type's extremes: a field bounded only by its type is the
    # kind of range that let the core crash.
    extremes = {int: INT32, float: (-FLOAT64_MAX, FLOAT64_MAX)}
    assert all(
        extremes[b.kind][0] < b.lowest and b.highest < extremes[b.kind][1]
        for b in BOUNDS.values()
        if b.kind is not bool
    )
    assert BOUNDS["leaves_per_game"].lowest == 1 and BOUNDS["dirichlet_epsilon"].highest == 1.0


def _just_outside(b: Bounds) -> list[float | int]:
    if b.kind is int:
        return [v for v in (b.lowest - 1, b.highest + 1) if INT32[0] <= v <= INT32[1]]
    return [v for v in (math.nextafter(b.lowest, -math.inf), math.nextafter(b.highest, math.inf)) if math.isfinite(v)]


# --- drawn settings -------------------------------------------------------------------------


def ends(b: Bounds) -> st.SearchStrategy:
    if b.kind is bool:
        return st.booleans()
    return st.sampled_from([b.lowest, b.highest])


def near_ends(b: Bounds) -> st.SearchStrategy:
    """One step inside either end."""
    if b.kind is bool:
        return st.booleans()
    if b.kind is int:
        return st.sampled_from([min(b.lowest + 1, b.highest), max(b.highest - 1, b.lowest)])
    return st.sampled_from([math.nextafter(b.lowest, math.inf), math.nextafter(b.highest, -math.inf)])


def interior(b: Bounds) -> st.SearchStrategy:
    if b.kind is bool:
        return st.booleans()
    if b.kind is int:
        return st.integers(b.lowest, b.highest)
    # Draws spread over a range like [0, 1e3] are rarely tiny: a log-scale draw between the
    # smallest normal double (or the bound) and the top gives small magnitudes their share.
    uniform = st.floats(b.lowest, b.highest, allow_nan=False, allow_infinity=False)
    low = max(b.lowest, 2.2250738585072014e-308)
    log_scale = st.floats(math.log(low), math.log(b.highest)).map(lambda x: min(max(math.exp(x), low), b.highest))
    return st.one_of(uniform, log_scale)


def any_value(b: Bounds) -> st.SearchStrategy:
    return st.one_of(st.just(b.default), ends(b), near_ends(b), interior(b))


@st.composite
def search_settings(draw: st.DrawFn) -> dict[str, float | int | bool]:
    """Overrides of SearchParams: every field drawn on its own (default, an end, next to one, inside),
    a few fields at their ends at once, or every field at one end."""
    style = draw(st.sampled_from(["each", "several_at_ends", "all_lowest", "all_highest"]))
    event(f"settings: {style}")  # counted by --hypothesis-show-statistics
    if style == "each":
        chosen = {name: draw(any_value(b)) for name, b in BOUNDS.items()}
    elif style == "several_at_ends":
        names = draw(st.lists(st.sampled_from(list(BOUNDS)), min_size=2, max_size=8, unique=True))
        chosen = {name: draw(ends(BOUNDS[name])) for name in names}
    else:
        top = style == "all_highest"
        chosen = {name: b.highest if top else b.lowest for name, b in BOUNDS.items()}
    return {name: value for name, value in chosen.items() if value != BOUNDS[name].default}


# --- a hostile but finite network -----------------------------------------------------------

LOGITS = ("network", "equal", "huge", "tiny", "one_square", "spread")
WDL = ("network", "win", "draw", "loss", "even", "at_tolerance", "random")
SCORES = ("network", "zero", "huge", "board", "tiny")
VALUE_ERRORS = ("missing", "zero", "huge", "tiny", "random")


class HostileEvaluator(TinyEvaluator):
    """TinyEvaluator's answers with each row's logits, win/draw/loss and score replaced by one
    of the drawn kinds, and each batch's value error: all of it finite and within what
    check_outputs lets through (a wdl row may miss 1 by its tolerance). Counts what it saw."""

    def __init__(
        self, logits: list[str], wdl: list[str], scores: list[str], value_errors: list[str], seed: int
    ) -> None:
        self.kinds = logits, wdl, scores, value_errors
        self.rng = np.random.default_rng(seed)
        self.rows = 0  # rows evaluated: the search's leaves and its root's W/D/L

    def __call__(self, features: np.ndarray) -> EvalOutput:
        out = super().__call__(features)
        n = len(features)
        self.rows += n
        logits_kinds, wdl_kinds, score_kinds, error_kinds = self.kinds
        for i in range(n):
            self._logits(out.policy_logits[i], self.rng.choice(logits_kinds))
            self._wdl(out.wdl[i], self.rng.choice(wdl_kinds))
            out.score[i] = self._score(out.score[i], self.rng.choice(score_kinds))
        return EvalOutput(out.policy_logits, out.wdl, out.score, self._value_error(n, self.rng.choice(error_kinds)))

    def _logits(self, row: np.ndarray, kind: str) -> None:
        rng = self.rng
        if kind == "equal":
            row[:] = rng.choice([0.0, FLOAT32_MAX, -FLOAT32_MAX, 1e30])
        elif kind == "huge":
            row[:] = rng.choice([-FLOAT32_MAX, FLOAT32_MAX], size=row.shape)
        elif kind == "tiny":
            row[:] = rng.standard_normal(row.shape) * 1e-40  # subnormal float32
        elif kind == "one_square":  # all the prior on one square, often an illegal one
            row[:] = -FLOAT32_MAX
            row[rng.integers(len(row))] = FLOAT32_MAX
        elif kind == "spread":
            row[:] = rng.uniform(-1e4, 1e4, size=row.shape)

    def _wdl(self, row: np.ndarray, kind: str) -> None:
        rows = {
            "win": [1, 0, 0],
            "draw": [0, 1, 0],
            "loss": [0, 0, 1],
            "even": [0.5, 0, 0.5],
            "at_tolerance": [1, 0, 0.0099] if self.rng.random() < 0.5 else [0, 0, 0.9901],
        }
        if kind in rows:
            row[:] = rows[kind]
        elif kind == "random":
            row[:] = self.rng.dirichlet([0.2, 0.2, 0.2])

    def _score(self, score: float, kind: str) -> float:
        magnitudes = {"zero": 0.0, "huge": FLOAT32_MAX, "board": float(_core.NUM_SQUARES), "tiny": 1e-45}
        return self.rng.choice([-1.0, 1.0]) * magnitudes[kind] if kind in magnitudes else score

    def _value_error(self, n: int, kind: str) -> np.ndarray | None:
        if kind == "missing":
            return None
        if kind == "random":
            return self.rng.exponential(1.0, n).astype(np.float32)
        return np.full(n, {"zero": 0.0, "huge": FLOAT32_MAX, "tiny": 1e-45}[kind], np.float32)


@st.composite
def hostile_evaluators(draw: st.DrawFn) -> HostileEvaluator:
    def kinds(names: tuple[str, ...]) -> list[str]:
        return draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))

    return HostileEvaluator(kinds(LOGITS), kinds(WDL), kinds(SCORES), kinds(VALUE_ERRORS), draw(st.integers(0, 2**32)))


# --- positions ------------------------------------------------------------------------------


@st.composite
def few_moves_positions(draw: st.DrawFn) -> Position:
    """One or two squares open to the side to move, every other one painted the opponent's."""
    open_squares = draw(st.lists(st.integers(0, _core.NUM_SQUARES - 1), min_size=1, max_size=2, unique=True))
    to_move = draw(st.sampled_from([Color.BLACK, Color.WHITE]))
    painted = [s for s in range(_core.NUM_SQUARES) if s not in open_squares]
    left = draw(st.integers(1, _core.MOVES_PER_PLAYER))  # the side to move's; Black moved first
    position = Position.setup(
        **{"white_floors" if to_move == Color.BLACK else "black_floors": painted},
        to_move=to_move,
        moves_left=(left, left) if to_move == Color.BLACK else (left - 1, left),
        komi=draw(st.integers(-_core.NUM_SQUARES, _core.NUM_SQUARES)),
    )
    assert len(position.legal_moves()) == len(open_squares)
    event(f"position: {len(open_squares)} legal moves")
    return position


@st.composite
def played_positions(draw: st.DrawFn) -> Position:
    """A random game's position after 0 .. MAX_GAME_PLIES - 1 plies (the endgame solves reach
    the later ones), or the last before its end."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    plies = draw(st.integers(0, _core.MAX_GAME_PLIES - 1))
    position = Position(draw(st.integers(-_core.NUM_SQUARES, _core.NUM_SQUARES)))
    for _ in range(plies):
        following = position.play(int(rng.choice(position.legal_moves())))
        if following.is_over:
            break
        position = following
    event("position: from a random game")
    return position


POSITIONS = st.one_of(few_moves_positions(), played_positions())


# --- one search -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file a player spec can name: the network itself is the drawn evaluator."""
    path = tmp_path_factory.mktemp("settings_fuzz") / "hostile.onnx"
    path.write_bytes(b"")
    return path


def spec_text(model: str, visits: int, overrides: dict[str, float | int | bool]) -> str:
    """The player spec a user would type; repr gives each float back exactly."""
    return f"{model}@visits={visits}" + "".join(f",{name}={value!r}" for name, value in overrides.items())


def assert_finite_statistics(root: dict, moves: list[dict], visits_cap: int) -> None:
    assert 0.0 <= root["winrate"] <= 1.0 and -1.0 <= root["value"] <= 1.0, root
    assert math.isfinite(root["score"]) and math.isfinite(root["utility"]), root
    assert 1 <= root["visits"] <= visits_cap, (root, visits_cap)
    assert sum(m["visits"] for m in moves) <= root["visits"]
    for m in moves:
        numbers = [m[k] for k in ("utility", "value", "winrate", "score", "prior", "lcb", "weight")]
        assert all(math.isfinite(x) for x in numbers), m
        assert 0.0 <= m["winrate"] <= 1.0 and 0.0 <= m["prior"] <= 1.0 and -1.0 <= m["value"] <= 1.0, m


class Watchdog:
    """Ends a search that runs WATCHDOG_S (stop event and interrupt), so that a search that would
    not end fails its example instead of hanging the test run."""

    def __init__(self, interrupt: Callable[[], None]) -> None:
        self.stop = threading.Event()
        self.fired = False

        def fire() -> None:
            self.fired = True
            self.stop.set()
            interrupt()

        self.timer = threading.Timer(WATCHDOG_S, fire)

    def __enter__(self) -> Watchdog:
        self.started = time.perf_counter()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.cancel()
        self.elapsed = time.perf_counter() - self.started


def session_search(player: Player, evaluator: HostileEvaluator, position: Position, seconds: float) -> None:
    """The engine's and the GUI's path: a GameSearch of the position under a time budget."""
    gs = player.session()
    try:
        gs.set_position(position)
        with Watchdog(gs.interrupt) as watchdog:
            result = gs.search(visits=player.visits, seconds=seconds, stop=watchdog.stop)
            move = gs.move_to_play(result)
            sampled = gs.move_to_play(result, temperature=1.0)
        assert not watchdog.fired, f"the search did not end within {WATCHDOG_S} s"
        assert watchdog.elapsed <= seconds + OVERRUN_S, (watchdog.elapsed, seconds)
        legal = position.legal_moves()
        assert move in legal and sampled in legal, (move, sampled, legal)
        leaves = gs.driver.params.leaves_per_game
        # The budget ends the search between batches: a batch started below it may overshoot it
        # by its own leaves, and the root's W/D/L is one more row.
        assert evaluator.rows <= player.visits + leaves + 1, (evaluator.rows, player.visits, leaves)
        assert_finite_statistics(gs.driver.search.root_info(0), result.moves, player.visits + leaves)
        assert gs.driver.search.total_in_flight() == 0
    finally:
        gs.stop()


def batched_search(
    player: Player, evaluator: HostileEvaluator, position: Position, seconds: float, modes: list[tuple[bool, ...]]
) -> None:
    """The arena's and self-play's path: two games at once, each with its root mode (noise,
    forced playouts, Gumbel), their exact solves under a deadline."""
    driver = player.many_games(len(modes))
    search = driver.search
    for game, (noise, forced, gumbel) in enumerate(modes):
        search.reset(game, position)
        search.set_root_mode(game, noise=noise, forced_playouts=forced, gumbel=gumbel)
    search.set_visit_targets(player.visits)
    search.set_deadline(seconds)
    with Watchdog(search.expire_deadline) as watchdog:
        while not search.all_done() and not watchdog.stop.is_set():
            driver.step()
        moves = [search.choose_move(game, 0.0) for game in range(len(modes))]
        sampled = [search.choose_move(game, 1.0) for game in range(len(modes))]
    assert not watchdog.fired, f"the search did not end within {WATCHDOG_S} s"
    assert watchdog.elapsed <= seconds + OVERRUN_S, (watchdog.elapsed, seconds)
    legal = position.legal_moves()
    assert all(m in legal for m in moves + sampled), (moves, sampled, legal)
    leaves = driver.params.leaves_per_game
    assert evaluator.rows <= len(modes) * (player.visits + leaves), (evaluator.rows, player.visits, leaves)
    assert search.total_in_flight() == 0 and search.pending == 0
    for game in range(len(modes)):
        assert_finite_statistics(search.root_info(game), search.move_infos(game), player.visits + leaves)
        target = search.policy_target(game)
        assert np.isfinite(target).all() and (target >= 0).all(), target
        # A distribution, or all zero where the search has none (no child visited, outside Gumbel).
        total = float(target.sum())
        assert abs(total - 1.0) < 1e-3 or (total == 0 and search.visit_counts(game).sum() == 0), target
        assert all(position.is_legal(int(s)) for s in np.flatnonzero(target)), target


def settings_fuzz(model_file: Path, data: st.DataObject) -> None:
    overrides = data.draw(search_settings(), label="settings")
    visits = data.draw(st.integers(1, 48), label="visits")
    evaluator = data.draw(hostile_evaluators(), label="network")
    position = data.draw(POSITIONS, label="position")
    seconds = data.draw(st.sampled_from([0.02, 0.1, 0.4]), label="seconds")
    spec = PlayerSpec.parse(spec_text(str(model_file), visits, overrides))
    assert spec.search == overrides and spec.visits == visits  # the text gave every value back exactly
    player = Player.from_spec(spec, evaluator=evaluator, seed=data.draw(st.integers(0, 2**32), label="seed"))
    batched = data.draw(st.booleans(), label="batched")
    event("path: many_games" if batched else "path: session")
    if batched:
        modes = data.draw(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=2, max_size=2))
        batched_search(player, evaluator, position, seconds, modes)
    else:
        session_search(player, evaluator, position, seconds)


FUZZ_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=40, derandomize=True, **FUZZ_SETTINGS)
@given(data=st.data())
def test_accepted_settings_search_legally_finitely_and_in_time(model_file, data) -> None:
    settings_fuzz(model_file, data)


@pytest.mark.slow
@settings(max_examples=600, **FUZZ_SETTINGS)
@given(data=st.data())
def test_accepted_settings_search_legally_finitely_and_in_time_long(model_file, data) -> None:
    settings_fuzz(model_file, data)


# --- settings outside their ranges ----------------------------------------------------------


@st.composite
def refused_setting(draw: st.DrawFn) -> tuple[str, str]:
    """A numeric field with a value the validator refuses, as typed: just past an end, far past
    it, past the core's 32-bit ints, not finite, or a fraction for a whole number."""
    b = draw(st.sampled_from([b for b in BOUNDS.values() if b.kind is not bool]))
    outside = _just_outside(b)
    if b.kind is int:
        far = [v for v in (INT32[0], INT32[1]) if not b.lowest <= v <= b.highest]
        value = draw(st.sampled_from(outside + far + [b.highest + draw(st.integers(1, 2**20)), 2**63, 10**400]))
        return b.name, draw(st.sampled_from([str(value), "nan", "1.5"]))
    far = st.one_of(
        st.floats(max_value=math.nextafter(b.lowest, -math.inf), allow_nan=False, allow_infinity=False),
        st.floats(min_value=math.nextafter(b.highest, math.inf), allow_nan=False, allow_infinity=False),
    )
    value = draw(st.one_of(st.sampled_from(outside), far))
    return b.name, draw(st.sampled_from([repr(value), "nan", "inf", "-inf", "1e400"]))


@settings(max_examples=200, derandomize=True, deadline=None)
@given(refused=refused_setting(), others=search_settings())
def test_settings_outside_their_range_are_refused_naming_the_field(model_file, refused, others) -> None:
    name, text = refused
    others.pop(name, None)
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        PlayerSpec.parse(spec_text(str(model_file), 8, others) + f",{name}={text}")
