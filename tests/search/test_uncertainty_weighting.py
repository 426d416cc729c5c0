"""Uncertainty-weighted playouts from Python: backup takes the model's value_error (or None
for a model without that head), refuses a negative, non-finite or misshapen one before any
tree changes, and the search weighs each playout 1 / (value_error + uncertainty_floor)."""

import numpy as np
import pytest

from popucom import Position, _core
from popucom.infer import EvalOutput, TinyEvaluator
from popucom.search import BatchedSearch


def weighted_params(on: bool = True) -> _core.SearchParams:
    params = _core.SearchParams()
    params.uncertainty_weighting = on
    return params


def outputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    wdl = np.tile(np.array([0.5, 0.2, 0.3], np.float32), (n, 1))
    return np.zeros((n, 81), np.float32), wdl, np.zeros(n, np.float32)


def pending_search(games: int = 3) -> tuple[_core.MultiSearch, int]:
    """A weighted search whose roots are expanded, with its second batch gathered."""
    search = _core.MultiSearch(games, weighted_params())
    search.set_visit_targets(20)
    inputs = np.zeros((search.max_batch, _core.NUM_FEATURE_PLANES, 9, 9), np.float32)
    search.backup(*outputs(search.gather(inputs)))  # the roots, from a model without the head
    return search, search.gather(inputs)


def test_the_settings_and_their_bounds() -> None:
    params = _core.SearchParams()
    assert params.uncertainty_weighting is False and params.uncertainty_floor == 0.05
    params.uncertainty_floor = 0.0
    with pytest.raises(ValueError, match="uncertainty_floor = 0 is out of range"):
        params.validate()


def test_backup_takes_value_error_none_or_an_array() -> None:
    floor = _core.SearchParams().uncertainty_floor
    search, n = pending_search()
    assert all(search.root_info(g)["weight"] == 1.0 for g in range(3))  # no head: weight 1
    errors = np.linspace(0.0, 1.0, n, dtype=np.float32)
    search.backup(*outputs(n), value_error=errors)
    assert search.pending == 0 and search.total_in_flight() == 0
    # Each game's root weighs its own evaluation 1 and each of its leaves 1 / (error + floor).
    total = sum(search.root_info(g)["weight"] for g in range(3))
    assert total == pytest.approx(3 + float(np.sum(1 / (errors.astype(np.float64) + floor))), rel=1e-12)
    inputs = np.zeros((search.max_batch, _core.NUM_FEATURE_PLANES, 9, 9), np.float32)
    n = search.gather(inputs)
    before = sum(search.root_info(g)["weight"] for g in range(3))
    search.backup(*outputs(n), value_error=None)  # as a model without the head answers
    assert sum(search.root_info(g)["weight"] for g in range(3)) == before + n
    search.backup(*outputs(search.gather(inputs)))  # the argument may be left out


@pytest.mark.parametrize(
    "bad, words", [(-0.5, "slot 1 is negative"), (np.nan, "slot 1 is NaN"), (np.inf, "slot 1 is infinite")]
)
def test_a_negative_or_nan_value_error_is_refused_naming_the_slot(bad: float, words: str) -> None:
    search, n = pending_search()
    errors = np.full(n, 0.1, np.float32)
    errors[1] = bad
    visits = [search.visits(g) for g in range(3)]
    with pytest.raises(ValueError, match=words):
        search.backup(*outputs(n), value_error=errors)
    assert search.pending == n and [search.visits(g) for g in range(3)] == visits  # no tree changed
    search.backup(*outputs(n), value_error=np.full(n, 0.1, np.float32))  # the same batch, answered well
    assert search.pending == 0


def test_a_misshapen_value_error_is_refused() -> None:
    search, n = pending_search()
    with pytest.raises(ValueError, match=r"value_error must have shape \(%d\), got \(%d\)" % (n, n + 1)):
        search.backup(*outputs(n), value_error=np.zeros(n + 1, np.float32))
    with pytest.raises(ValueError, match=r"value_error must have shape \(%d\), got \(%d, 1\)" % (n, n)):
        search.backup(*outputs(n), value_error=np.zeros((n, 1), np.float32))
    with pytest.raises(TypeError, match="value_error must have dtype float32"):
        search.backup(*outputs(n), value_error=np.zeros(n, np.float64))
    assert search.pending == n
    search.cancel_pending()
    assert search.total_in_flight() == 0


def test_batched_search_passes_the_evaluators_value_error_on() -> None:
    """An evaluator sure to within 0.45 weighs every evaluation 2 (floor 0.05); weighting off,
    every playout weighs 1."""

    class Sure(TinyEvaluator):
        def __call__(self, features: np.ndarray) -> EvalOutput:
            out = super().__call__(features)
            return EvalOutput(out.policy_logits, out.wdl, out.score, np.full(len(features), 0.45, np.float32))

    for on in (False, True):
        driver = BatchedSearch(Sure(), num_games=2, params=weighted_params(on))
        for g in range(2):
            driver.search.reset(g, Position())
        driver.search.set_visit_targets(100)
        driver.run()
        for g in range(2):
            root = driver.search.root_info(g)
            expected = root["visits"] / (0.45 + 0.05) if on else root["visits"]
            assert root["weight"] == pytest.approx(expected, rel=1e-6)
            moves = driver.search.move_infos(g)
            assert sum(m["visits"] for m in moves) + 1 == root["visits"]
            assert sum(m["weight"] for m in moves) < root["weight"]  # and the root's own evaluation
