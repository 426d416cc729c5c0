"""A move ends with its time budget and a stop is obeyed, even with the largest exact-solver
budgets the settings allow: the solves inside a search share its deadline, and a stop ends
them with the search. The bounds here are generous (machines are noisy):
they tell a search that ends from one that runs for minutes."""

import io
import random
import time

import pytest

import popucom.player as player_module
from popucom import _core
from popucom.engine.gtp import Engine
from popucom.infer import TinyEvaluator
from popucom.search.game_search import GameSearch
from popucom.search.params import search_params

# Every exact solve on, each at the largest budget its bounds allow (csrc/search/params.h).
GAME_PLIES = 2 * _core.MOVES_PER_PLAYER
LARGEST_SOLVES = {
    "endgame_solve_plies": GAME_PLIES,
    "leaf_solve_plies": GAME_PLIES,
    "endgame_solve_max_nodes": 500_000_000,
    "leaf_solve_max_nodes": 10_000_000,
}
SPEC_OPTIONS = "@" + ",".join(f"{k}={v}" for k, v in LARGEST_SOLVES.items())
ENDS_WITHIN_S = 30.0  # for a one-second budget: a search that ignored it would run for minutes


def random_record(plies: int, seed: int) -> str:
    """The record of a game of random moves, `plies` long (a game that ends first is replayed)."""
    rng = random.Random(seed)
    while True:
        game = _core.Game()
        while len(game.moves) < plies and not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            return game.record


@pytest.fixture
def solving_engine(tmp_path, monkeypatch):
    """solving_engine(**kwargs): an Engine whose model player (TinyEvaluator) solves every leaf
    and every move exactly with the largest budgets."""
    path = tmp_path / "fake.onnx"
    path.write_bytes(b"")
    monkeypatch.setattr(player_module, "load_evaluator", lambda *args, **kwargs: TinyEvaluator())

    def make(**kwargs) -> Engine:
        engine = Engine(f"{path}{SPEC_OPTIONS}", **kwargs)
        engine.out = io.StringIO()
        return engine

    return make


def replies(engine: Engine) -> list[str]:
    return engine.out.getvalue()[:-2].split("\n\n")


def test_these_are_the_largest_solver_budgets() -> None:
    search_params(LARGEST_SOLVES)
    for name in LARGEST_SOLVES:
        with pytest.raises(ValueError, match=name):
            search_params({name: LARGEST_SOLVES[name] + 1})


def test_genmove_ends_with_its_seconds_whatever_the_solver_budgets(solving_engine) -> None:
    engine = solving_engine(seconds=1.0)
    # Twenty plies left: every solve at the root and below the leaves would take hours.
    data = f"popucom-set-position {random_record(GAME_PLIES - 20, seed=1)}\ngenmove b\n"  # an even ply: Black
    started = time.perf_counter()
    engine.serve(io.BytesIO(data.encode()))
    elapsed = time.perf_counter() - started
    answers = replies(engine)
    assert answers[0] == "=" and answers[1].startswith("= "), answers
    assert elapsed < ENDS_WITHIN_S


def test_a_timed_search_in_the_endgame_ends_with_its_seconds() -> None:
    search = GameSearch(TinyEvaluator(), params=search_params(LARGEST_SOLVES))
    search.set_position(_core.Game.from_record(random_record(GAME_PLIES - 24, seed=2)).position)
    started = time.perf_counter()
    result = search.search(seconds=1.0)
    assert time.perf_counter() - started < ENDS_WITHIN_S
    assert result.visits >= 2


def test_stop_ends_a_search_inside_a_long_solve() -> None:
    search = GameSearch(TinyEvaluator(), params=search_params(LARGEST_SOLVES))
    search.set_position(_core.Game.from_record(random_record(GAME_PLIES - 20, seed=3)).position)
    search.start(visits=1_000_000)
    time.sleep(1.0)
    started = time.perf_counter()
    search.stop()
    assert time.perf_counter() - started < ENDS_WITHIN_S
    assert not search.running
