"""A sliding window over the newest N samples of a directory of shards.

Shards are memory-mapped: a batch reads only its rows, so the window can be
far larger than memory. About a tenth of the games (by game id) are held out
for validation; a random board symmetry is applied per sample, to the
features and to the policy and ownership targets alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _core
from ..data.shards import FIELDS, ShardError, read_shard

NUM_SQUARES = _core.NUM_SQUARES

# The way on past a damaged shard: the window (the pipeline's, or `popucom train`'s) opens
# without it; self-play data is regenerable, and a finished iteration does not replay its games.
DELETE_SHARD = "delete it and run the same command again (the training window goes on without it)"

# SOURCE[s][j]: the square whose value lands on square j under symmetry s.
SOURCE = np.zeros((_core.NUM_SYMMETRIES, NUM_SQUARES), dtype=np.int64)
for _s in range(_core.NUM_SYMMETRIES):
    for _sq in range(NUM_SQUARES):
        SOURCE[_s, _core.transform_square(_s, _sq)] = _sq


@dataclass
class Batch:
    features: np.ndarray  # float32 (n, planes, 9, 9)
    policy: np.ndarray  # float32 (n, 81)
    outcome: np.ndarray  # int64 (n,): 0 win, 1 draw, 2 loss (WDL class of the side to move)
    short_term_value: np.ndarray  # float32 (n,) in [-1, 1], win - loss (data/short_term.py)
    score: np.ndarray  # float32 (n,)
    ownership: np.ndarray  # float32 (n, 81)
    full_search: np.ndarray  # float32 (n,) weight of the policy terms

    def __len__(self) -> int:
        return len(self.score)

    @classmethod
    def random(cls, size: int, seed: int = 0) -> Batch:
        """Random positions with random (but well-formed) targets, for timing training steps: a
        step's cost does not depend on what it learns."""
        from ..data.positions import random_features

        legal_plane = [name for name, _ in _core.FEATURE_PLANES].index("legal_moves")
        rng = np.random.default_rng(seed)
        features = random_features(size, seed=seed, komi_range=5)
        legal = features[:, legal_plane].reshape(size, -1)
        policy = rng.random((size, _core.NUM_SQUARES)).astype(np.float32) * legal
        policy /= policy.sum(1, keepdims=True) + 1e-9
        return cls(
            features=features,
            policy=policy,
            outcome=rng.integers(0, 3, size).astype(np.int64),
            short_term_value=rng.uniform(-1, 1, size).astype(np.float32),
            score=rng.normal(0, 10, size).astype(np.float32),
            ownership=rng.choice([-1.0, 0.0, 1.0], (size, _core.NUM_SQUARES)).astype(np.float32),
            full_search=np.ones(size, np.float32),
        )


class ReplayWindow:
    def __init__(self, shard_dir: str | Path, window_samples: int, val_fraction: float = 0.1) -> None:
        """Opens the newest shards (by file name, which starts with the iteration) up to window_samples."""
        paths = sorted(Path(shard_dir).glob("*.pcs"), reverse=True)
        self.shards = []
        total = 0
        for path in paths:
            if total >= window_samples:
                break
            try:
                shard = read_shard(path)
            except ShardError as e:
                raise ShardError(f"training window: {e}; {DELETE_SHARD}") from e
            if len(shard):
                self.shards.append(shard)
                total += len(shard)
        if not self.shards:
            raise ShardError(f"no training data: no non-empty .pcs shards in {shard_dir}")
        val_mod = max(2, round(1 / val_fraction)) if val_fraction > 0 else 0
        self.train_rows, self.val_rows = [], []
        for k, shard in enumerate(self.shards):
            held_out = (shard.arrays["game_id"] % val_mod == 0) if val_mod else np.zeros(len(shard), bool)
            rows = np.arange(len(shard), dtype=np.int64)
            self.train_rows.append(np.stack([np.full(len(rows), k), rows], 1)[~held_out])
            self.val_rows.append(np.stack([np.full(len(rows), k), rows], 1)[held_out])
        self.train_rows = np.concatenate(self.train_rows)
        self.val_rows = np.concatenate(self.val_rows)
        self.num_samples = total

    def sample(self, rng: np.random.Generator, batch_size: int, split: str = "train", augment: bool = True) -> Batch:
        rows = self.train_rows if split == "train" else self.val_rows
        if len(rows) == 0:
            raise ValueError(f"the training window has no {split} samples")
        picked = rows[rng.integers(0, len(rows), size=batch_size)]
        return self._gather(picked, rng.integers(0, _core.NUM_SYMMETRIES, size=batch_size) if augment else None)

    def validation_batches(self, batch_size: int, limit: int | None = None) -> list[Batch]:
        """Fixed validation batches (no augmentation), for comparable numbers across steps."""
        rows = self.val_rows[:limit] if limit else self.val_rows
        return [self._gather(rows[i : i + batch_size], None) for i in range(0, len(rows), batch_size)]

    def _name_corrupt_position(self, picked: np.ndarray) -> None:
        """Raises ShardError naming the shard and row of the first packed position of a batch
        that does not unpack (the encoder only knows its place in the batch)."""
        for k, row in picked:
            shard = self.shards[int(k)]
            try:
                _core.Position.unpack(np.ascontiguousarray(shard.arrays["state"][int(row)]))
            except ValueError as e:
                raise ShardError(
                    f"{shard.path}: row {int(row)}: packed position is corrupt ({e}); {DELETE_SHARD}"
                ) from None

    def _gather(self, picked: np.ndarray, symmetries: np.ndarray | None) -> Batch:
        n = len(picked)
        names = ("state", "policy", "outcome", "short_term_value", "score", "ownership", "full_search")
        data = {name: np.empty((n, *FIELDS[name][1]), dtype=FIELDS[name][0]) for name in names}
        for k in np.unique(picked[:, 0]):
            mask = picked[:, 0] == k
            local = picked[mask, 1]
            for name in names:
                data[name][mask] = self.shards[k].arrays[name][local]
        syms = symmetries.astype(np.uint8) if symmetries is not None else None
        features = np.empty((n, _core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE), dtype=np.float32)
        try:
            _core.encode_batch(np.ascontiguousarray(data["state"]), features, syms)
        except ValueError:
            self._name_corrupt_position(picked)
            raise
        policy = data["policy"].astype(np.float32)
        ownership = data["ownership"].astype(np.float32)
        if syms is not None:
            source = SOURCE[syms]
            policy = np.take_along_axis(policy, source, axis=1)
            ownership = np.take_along_axis(ownership, source, axis=1)
        return Batch(
            features=features,
            policy=policy,
            outcome=(1 - data["outcome"].astype(np.int64)),  # +1 -> 0 (win), 0 -> 1 (draw), -1 -> 2 (loss)
            short_term_value=data["short_term_value"].astype(np.float32),
            score=data["score"].astype(np.float32),
            ownership=ownership,
            full_search=data["full_search"].astype(np.float32),
        )
