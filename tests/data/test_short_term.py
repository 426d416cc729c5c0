"""The short-term value target: the next plies' search values and the result, averaged."""

import numpy as np
import pytest

from popucom import _core
from popucom.data.short_term import short_term_values

B, W = _core.Color.BLACK, _core.Color.WHITE


def test_the_average_by_hand() -> None:
    # horizon 2: lam = 1/2. Black's values 0.5 (Black to move), White's 0.2 (White to move,
    # so -0.2 for Black), then Black wins (+1).
    got = short_term_values([0.5, 0.2], [B, W], black_result=1, horizon=2.0)
    last = 0.5 * -0.2 + 0.5 * 1.0  # for Black: 0.4, so -0.4 for White, the mover
    first = 0.5 * 0.5 + 0.5 * last
    np.testing.assert_allclose(got, [first, -last], rtol=1e-6)
    assert got.dtype == np.float32


def test_a_horizon_of_one_ply_is_the_search_value_itself() -> None:
    values = [0.3, -0.1, 0.7]
    np.testing.assert_allclose(short_term_values(values, [B, W, B], black_result=-1, horizon=1.0), values, rtol=1e-6)


def test_a_long_horizon_tends_to_the_result_from_each_movers_side() -> None:
    got = short_term_values([0.0] * 4, [B, W, B, W], black_result=-1, horizon=1e9)
    np.testing.assert_allclose(got, [-1, 1, -1, 1], atol=1e-6)


def test_values_stay_in_range_and_bad_input_is_refused() -> None:
    got = short_term_values([1.5, -3.0], [B, W], black_result=0)
    assert np.all(np.abs(got) <= 1)
    with pytest.raises(ValueError, match="2 root values for 1 movers"):
        short_term_values([0.1, 0.2], [B], black_result=0)
    with pytest.raises(ValueError, match="horizon 0.5"):
        short_term_values([0.1], [B], black_result=0, horizon=0.5)
