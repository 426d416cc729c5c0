"""The short-term value target (KataGo's): what the searches of the next few plies said a
position was worth, an exponentially weighted average that hands the weight left over at the
end of the game to its result.

    target(t) = (1 - lam) * sum_{i >= t} lam^(i - t) * v(i) + lam^(T - t) * z

v(i) is the root search's win - loss at ply i and z the game's result, both from the side to
move at ply t. The value-error head learns the squared gap between the value head and this
target: the final result alone (the reference project's target) charges the network for every
mistake made later in the game, which no evaluation of this position can foresee.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import _core

# Mean look-ahead in plies (lam = 1 - 1 / horizon): KataGo's shortest horizon (6 turns on
# 19x19) scaled to this smaller board and shorter game, about 2-5 plies.
SHORT_TERM_HORIZON = 5.0


def short_term_values(
    root_values: Sequence[float],
    movers: Sequence[_core.Color],
    black_result: float,
    horizon: float = SHORT_TERM_HORIZON,
) -> np.ndarray:
    """The target of every searched ply of one finished game, float32, each from its mover's side.

    root_values[i] is the search's win - loss at the i-th searched ply for movers[i], the side
    to move there; the plies run without a gap to the end of the game. black_result is the
    final result for Black (1 win, 0 draw, -1 loss)."""
    if len(root_values) != len(movers):
        raise ValueError(f"{len(root_values)} root values for {len(movers)} movers")
    if not horizon >= 1.0:
        raise ValueError(f"short-term horizon {horizon}: want at least 1 ply")
    lam = 1.0 - 1.0 / horizon
    signs = np.array([1.0 if m == _core.Color.BLACK else -1.0 for m in movers])
    black_values = np.clip(np.asarray(root_values, dtype=np.float64), -1.0, 1.0) * signs
    out = np.empty(len(black_values))
    ahead = float(black_result)  # the target of the ply after the last: the result itself
    for i in range(len(black_values) - 1, -1, -1):
        ahead = (1.0 - lam) * black_values[i] + lam * ahead
        out[i] = ahead
    return (out * signs).astype(np.float32)
