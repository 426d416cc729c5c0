"""Random game positions: inputs for parity checks, tests and benchmarks."""

from __future__ import annotations

import numpy as np

from .. import _core


def random_positions(count: int, seed: int = 0, max_plies: int = 45, komi_range: int = 0) -> np.ndarray:
    """Packed (count, PACKED_WORDS) positions reached by uniformly random play, none of them finished."""
    rng = np.random.default_rng(seed)
    packed: list[np.ndarray] = []
    while len(packed) < count:
        game = _core.Game(int(rng.integers(-komi_range, komi_range + 1)))
        for _ in range(int(rng.integers(0, max_plies + 1))):
            if game.is_over:
                break
            game.play(int(rng.choice(game.legal_moves())))
        if not game.is_over:
            packed.append(game.position.pack())
    return np.stack(packed)


def random_features(count: int, seed: int = 0, max_plies: int = 45, komi_range: int = 0) -> np.ndarray:
    """Encoded features (count, planes, 9, 9) of random_positions."""
    out = np.empty((count, _core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE), np.float32)
    _core.encode_batch(random_positions(count, seed, max_plies, komi_range), out)
    return out
