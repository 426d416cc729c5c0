"""The search under bad evaluators, huge budgets, concurrent callers and interpreter exit:
a refused batch leaves the trees as they were, budgets are bounded where they come in, one
BatchedSearch refuses a second thread, GameSearch is safe from any thread, and a process that
exits while a search thinks in the background exits cleanly."""

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import popucom.search.batched as batched
from popucom import Position, _core
from popucom.infer import EvalOutput, TinyEvaluator, UniformEvaluator
from popucom.infer.contract import check_outputs
from popucom.limits import MAX_VISITS, check_visits
from popucom.search import BatchedSearch, GameSearch, analyze


class BadOnce:
    """TinyEvaluator's answers, except call number `bad_call`, where `spoil` spoils row 0."""

    feature_version = _core.FEATURE_VERSION

    def __init__(self, bad_call: int = 1, spoil=None) -> None:
        self.inner = TinyEvaluator()
        self.calls = 0
        self.bad_call = bad_call
        self.spoil = spoil or (lambda out: out.wdl.__setitem__((0, 0), np.nan))

    def __call__(self, features: np.ndarray) -> EvalOutput:
        out = self.inner(features)
        self.calls += 1
        if self.calls == self.bad_call:
            out = EvalOutput(*(a if a is None else a.copy() for a in out))  # value_error may be None
            self.spoil(out)
        return out


# --- a refused batch leaves the trees as they were ------------------------------------------


def good_outputs(n: int = 2) -> EvalOutput:
    wdl = np.tile(np.array([0.5, 0.2, 0.3], np.float32), (n, 1))
    return EvalOutput(np.zeros((n, 81), np.float32), wdl, np.zeros(n, np.float32))


@pytest.mark.parametrize(
    "field, row, value, words",
    [
        ("wdl", (0, 0), np.nan, "wdl"),
        ("wdl", (1, 2), np.inf, "wdl"),
        ("wdl", (0, 1), -0.25, "wdl"),
        ("wdl", (1, 0), 0.9, "sum"),
        ("policy_logits", (0, 5), np.inf, "policy_logits"),
        ("policy_logits", (1, 80), np.nan, "policy_logits"),
        ("score", (1,), np.nan, "score"),
    ],
)
def test_check_outputs_refuses_non_finite_outputs_and_wdl_that_is_no_distribution(field, row, value, words) -> None:
    out = good_outputs()
    getattr(out, field)[row] = value
    with pytest.raises(ValueError, match=words):
        check_outputs(out, 2)
    assert check_outputs(good_outputs(), 2).wdl.dtype == np.float32  # good ones pass


def test_check_outputs_allows_rounding_in_the_wdl_sum() -> None:
    out = good_outputs()
    out.wdl[0] = [0.5004, 0.2, 0.3]  # a reduced-precision softmax
    check_outputs(out, 2)


def assert_consistent(driver: BatchedSearch) -> None:
    assert driver.search.pending == 0 and driver.search.total_in_flight() == 0


def test_a_nan_batch_is_refused_and_the_next_search_works() -> None:
    driver = BatchedSearch(BadOnce(bad_call=3), num_games=2, params=_core.SearchParams())
    for g in range(2):
        driver.search.reset(g, Position())
    driver.search.set_visit_targets(64)
    with pytest.raises(ValueError, match="not finite|wdl"):
        driver.run()
    assert_consistent(driver)
    driver.run()  # the refused batch is gathered again and the search completes
    assert driver.search.all_done() and driver.search.visits(0) >= 64
    driver.search.reset(0, Position())  # and the trees can be reset


def test_a_batch_the_core_refuses_is_rolled_back_too(monkeypatch) -> None:
    """The core's own check of the outputs (backup) raising must roll back as well."""
    monkeypatch.setattr(
        batched, "check_outputs", lambda out, n: EvalOutput(*(a if a is None else np.ascontiguousarray(a) for a in out))
    )
    driver = BatchedSearch(BadOnce(bad_call=2), num_games=1)
    driver.search.reset(0, Position())
    driver.search.set_visit_targets(40)
    with pytest.raises(ValueError, match="not finite"):
        driver.run()
    assert_consistent(driver)
    driver.run()
    assert driver.search.visits(0) >= 40


def test_an_interrupted_step_is_rolled_back() -> None:
    class Interrupting(TinyEvaluator):
        calls = 0

        def __call__(self, features):
            self.calls += 1
            if self.calls == 2:
                raise KeyboardInterrupt
            return super().__call__(features)

    driver = BatchedSearch(Interrupting(), num_games=1)
    driver.search.reset(0, Position())
    driver.search.set_visit_targets(40)
    with pytest.raises(KeyboardInterrupt):
        driver.run()
    assert_consistent(driver)
    driver.run()


def test_game_search_survives_a_nan_batch_and_a_nan_root_evaluation() -> None:
    for bad_call in (1, 2):  # 1: the root's own evaluation, 2: a search batch
        gs = GameSearch(BadOnce(bad_call=bad_call))
        with pytest.raises(ValueError):
            gs.search(visits=50)
        assert gs.search(visits=50).visits >= 50
        gs.clear()
        assert gs.search(visits=20).visits >= 20


def test_background_search_reports_a_nan_batch_and_the_next_one_works() -> None:
    gs = GameSearch(BadOnce(bad_call=2))
    errors, done = [], threading.Event()
    gs.start(visits=50, on_error=lambda e: (errors.append(e), done.set()), on_done=lambda r: done.set())
    assert done.wait(30) and len(errors) == 1 and isinstance(errors[0], ValueError)
    gs.stop()
    assert gs.search(visits=50).visits >= 50


# --- budgets are bounded where they come in ----------------------------------------------


@pytest.mark.parametrize("visits", [0, -1, MAX_VISITS + 1, 2**31, 2**63, 10**400, True, 1.5, float("nan"), "100"])
def test_check_visits_refuses_what_is_not_a_reasonable_count(visits) -> None:
    with pytest.raises(ValueError, match="visits must be a whole number from 1 to"):
        check_visits(visits)


def test_check_visits_accepts_counts_in_range() -> None:
    assert check_visits(1) == 1 and check_visits(MAX_VISITS) == MAX_VISITS
    assert check_visits(np.int64(5)) == 5 and check_visits(None) is None


@pytest.mark.parametrize("visits, seconds", [(2**31, None), (10**400, None), (-5, None), (None, float("nan"))])
def test_game_search_refuses_huge_or_bad_budgets_at_once(visits, seconds) -> None:
    gs = GameSearch(UniformEvaluator())
    try:
        with pytest.raises(ValueError, match="visits|seconds"):
            gs.start(visits=visits, seconds=seconds)
        assert not gs.running
    finally:
        gs.stop()


def test_analyze_refuses_huge_budgets() -> None:
    with pytest.raises(ValueError, match="visits"):
        analyze(Position(), UniformEvaluator(), visits=2**31, seconds=0.2)
    with pytest.raises(ValueError, match="seconds"):
        analyze(Position(), UniformEvaluator(), visits=None, seconds=float("inf"))


# --- concurrent callers ------------------------------------------------------------------


@pytest.fixture
def fine_thread_switching():
    """Threads switch every microsecond instead of every 5 ms, so races show in few iterations."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


class SlowUniform(UniformEvaluator):
    """Uniform answers, with the GIL released for a moment as a real network call does."""

    def __call__(self, features):
        time.sleep(0.0005)
        return super().__call__(features)


def test_one_batched_search_refuses_a_second_thread_and_stays_usable(fine_thread_switching) -> None:
    driver = BatchedSearch(SlowUniform(), num_games=4, params=_core.SearchParams())
    for g in range(4):
        driver.search.reset(g, Position())
    driver.search.set_visit_targets(MAX_VISITS)
    errors: list[BaseException] = []
    stepped = [0]
    go = threading.Barrier(4)

    def hammer() -> None:
        go.wait()
        for _ in range(150):
            try:
                driver.step()
                stepped[0] += 1
            except RuntimeError as e:
                errors.append(e)
            except BaseException as e:  # anything else is a wedge or a corrupt tree
                errors.append(e)
                raise

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    unclear = [e for e in errors if "in use by another thread" not in str(e)]
    assert not unclear, unclear[:3]
    assert stepped[0] > 0 and errors  # both happened: the stress really overlapped
    assert_consistent(driver)
    driver.search.set_visit_targets(driver.search.visits(0) + 32)
    driver.run()
    for g in range(4):
        driver.search.reset(g, Position())


def test_game_search_from_many_threads_at_once(fine_thread_switching) -> None:
    """start, stop, ponder, play, set_position, search, clear and reads from six threads: no
    exception but the documented ones, and the search works afterwards."""
    gs = GameSearch(TinyEvaluator(), leaves_per_step=4)
    opening = [Position(), Position().play("e5"), Position().play("e5").play("d4")]
    unexpected: list[BaseException] = []
    deadline = time.perf_counter() + 2.0

    def worker(seed: int) -> None:
        import random

        rng = random.Random(seed)
        while time.perf_counter() < deadline:
            action = rng.randrange(9)
            try:
                if action == 0:
                    gs.start(visits=rng.randrange(1, 60))
                elif action == 1:
                    gs.ponder()
                elif action == 2:
                    gs.stop()
                elif action == 3:
                    gs.set_position(rng.choice(opening))
                elif action == 4:
                    gs.search(visits=gs.visits + rng.randrange(1, 20))
                elif action == 5:
                    root = gs.position
                    gs.play(root.legal_moves()[0])
                elif action == 6:
                    gs.clear()
                elif action == 7:
                    gs.result()
                    assert gs.visits >= 0 and gs.running in (True, False)
                else:
                    gs.wait(0.01)
            except ValueError as e:  # a move a concurrent play made illegal, a game over
                if "illegal" not in str(e) and "over" not in str(e):
                    unexpected.append(e)
            except BaseException as e:
                unexpected.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a GameSearch call hung"
    gs.stop()
    assert not unexpected, unexpected[:3]
    assert not gs.running
    gs.set_position(Position())
    assert gs.search(visits=gs.visits + 30).visits >= 30
    assert_consistent(gs.driver)


def test_stop_racing_start_never_raises(fine_thread_switching) -> None:
    gs = GameSearch(UniformEvaluator(), leaves_per_step=4)
    errors: list[BaseException] = []

    def stopper() -> None:
        for _ in range(300):
            try:
                gs.stop()
            except BaseException as e:
                errors.append(e)

    t = threading.Thread(target=stopper)
    t.start()
    for _ in range(300):
        gs.ponder()
    t.join()
    gs.stop()
    assert not errors, errors[:3]
    assert not gs.running


# --- interpreter exit --------------------------------------------------------------------

PONDER_AND_EXIT = """
import sys, time
from popucom.infer import TinyEvaluator
from popucom.search import GameSearch
searches = [GameSearch(TinyEvaluator(), threads=2) for _ in range(2)]
for gs in searches:
    gs.ponder()
time.sleep(0.2)
sys.exit(int(sys.argv[1]))
"""


def test_exit_while_pondering_is_clean() -> None:
    """No abort ('terminate called without an active exception') when the interpreter ends
    while a search thread is inside the core with the GIL released."""
    for rc in (0, 0, 3):
        out = subprocess.run(
            [sys.executable, "-c", PONDER_AND_EXIT, str(rc)], capture_output=True, text=True, timeout=60
        )
        assert out.returncode == rc, out.stderr[-2000:]
        assert "terminate called" not in out.stderr and "Fatal Python error" not in out.stderr, out.stderr[-2000:]


def test_the_root_cannot_move_while_a_batch_is_pending() -> None:
    """What another thread could do between gather and backup: moving the root would leave
    the pending slots pointing into a tree that is gone."""
    search = _core.MultiSearch(1, _core.SearchParams())
    search.reset(0, Position())
    search.set_visit_target(0, 50)
    inputs = np.zeros((search.max_batch, _core.NUM_FEATURE_PLANES, 9, 9), np.float32)
    assert search.gather(inputs) > 0
    move = search.position(0).legal_moves()[0]
    with pytest.raises(RuntimeError, match="waiting for evaluation"):
        search.play(0, move)
    with pytest.raises(RuntimeError, match="pending"):
        search.reset(0, Position())
    search.cancel_pending()
    search.play(0, move)
    assert search.position(0) == Position().play(move) and search.total_in_flight() == 0


def test_callbacks_may_call_back_in() -> None:
    """A callback runs on the search thread, holding the tree: stop, play, start and reads from
    it must not deadlock."""
    gs = GameSearch(TinyEvaluator(), leaves_per_step=4)
    done = threading.Event()
    calls: list[str] = []

    def callback(result) -> None:
        if not calls:
            calls.append("first")
            gs.start(visits=gs.visits + 20, on_done=lambda r: (calls.append("second done"), done.set()))
            gs.stop()  # joins nothing from here (the new search waits for this thread's tree)
            calls.append(f"read {gs.visits >= 0} {gs.result().visits >= 0}")

    gs.start(callback=callback, on_done=lambda r: calls.append(f"first done {gs.move_to_play(r) >= 0}"))
    assert done.wait(30), calls
    gs.stop()
    assert calls[:3] == ["first", "read True True", "first done True"] and "second done" in calls, calls
    gs.play(gs.position.legal_moves()[0])
    assert not gs.running
