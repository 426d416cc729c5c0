"""Adaptive komi: sample each game's komi so Black's win rate stays near 50%.

Statistics are an exponentially decayed record of finished games: a histogram
of raw floor differences (black - white) for games that ran out of moves, and
decayed counts of no-legal-move wins by colour, which no komi changes. From
them, p(k) = P(Black wins with komi k) (a draw counts half) for every k in
range; komi is drawn with weight exp(-(p(k) - 1/2)^2 / (2 sigma^2)). Until
enough games are in, komi is uniform in [-warmup_range, warmup_range]. The
statistics persist in the run directory (atomic JSON).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from .. import _core
from ..fileio import read_metadata_text, write_text_atomic

MAX_DIFF = _core.NUM_SQUARES  # the largest floor difference: every floor one colour


class KomiSampler:
    def __init__(
        self,
        komi_range: int = 40,
        decay: float = 0.998,
        sigma: float = 0.1,
        warmup_games: float = 32,
        warmup_range: int = 8,
        floor_weight: float = 0.01,
    ) -> None:
        self.komi_range = komi_range
        self.decay = decay
        self.sigma = sigma
        self.warmup_games = warmup_games
        self.warmup_range = warmup_range
        self.floor_weight = floor_weight
        self.diffs = np.zeros(2 * MAX_DIFF + 1)  # index d + MAX_DIFF
        self.no_legal_move_wins = np.zeros(2)  # [black, white]
        self.games = 0.0

    @property
    def effective_games(self) -> float:
        return float(self.diffs.sum() + self.no_legal_move_wins.sum())

    def record(self, raw_diff: int, no_legal_move_winner: str | None = None) -> None:
        """Adds a finished game: its raw floor difference, or who won by no legal move."""
        self.diffs *= self.decay
        self.no_legal_move_wins *= self.decay
        if no_legal_move_winner is None:
            self.diffs[int(raw_diff) + MAX_DIFF] += 1
        else:
            self.no_legal_move_wins[0 if no_legal_move_winner == "black" else 1] += 1
        self.games += 1

    def komis(self) -> np.ndarray:
        return np.arange(-self.komi_range, self.komi_range + 1)

    def black_win_rate(self) -> np.ndarray:
        """p(k) for every k in komis()."""
        total = self.effective_games
        d = np.arange(-MAX_DIFF, MAX_DIFF + 1)
        rates = []
        for k in self.komis():
            wins = self.diffs[d + k > 0].sum() + 0.5 * self.diffs[d + k == 0].sum() + self.no_legal_move_wins[0]
            rates.append(wins / total if total else 0.5)
        return np.array(rates)

    def weights(self) -> np.ndarray:
        p = self.black_win_rate()
        w = np.exp(-((p - 0.5) ** 2) / (2 * self.sigma**2))
        return np.maximum(w, self.floor_weight)

    def sample(self, rng: random.Random) -> int:
        if self.effective_games < self.warmup_games:
            return rng.randint(-self.warmup_range, self.warmup_range)
        w = self.weights()
        return int(rng.choices(list(self.komis()), weights=list(w))[0])

    def fair_komi(self) -> int:
        """The komi whose Black win rate is closest to 1/2."""
        return int(self.komis()[int(np.argmin(np.abs(self.black_win_rate() - 0.5)))])

    # --- persistence ------------------------------------------------------------
    def to_dict(self) -> dict:
        """What save() writes and from_dict() reads (a shipped sidecar's "komi" holds the same)."""
        return {
            "komi_range": self.komi_range,
            "decay": self.decay,
            "sigma": self.sigma,
            "diffs": self.diffs.tolist(),
            "no_legal_move_wins": self.no_legal_move_wins.tolist(),
            "games": self.games,
            "fair_komi": self.fair_komi(),
        }

    def save(self, path: str | Path) -> None:
        write_text_atomic(path, json.dumps(self.to_dict()))

    @classmethod
    def load(cls, path: str | Path, **kwargs) -> KomiSampler:
        """The statistics a run saved at `path` (none yet: a fresh sampler); ValueError naming
        the file when they are corrupt."""
        path = Path(path)
        if not path.exists():
            return cls(**kwargs)
        try:
            data = json.loads(read_metadata_text(path, "komi statistics"))
        except json.JSONDecodeError as e:
            raise ValueError(f"komi statistics {path} are corrupt: {e}") from e
        return cls.from_dict(data, source=str(path), **kwargs)

    @classmethod
    def from_dict(cls, data: object, source: str = "komi statistics", **kwargs) -> KomiSampler:
        """Statistics as save() writes them (a shipped sidecar's "komi" holds the same dict);
        ValueError naming `source` when they are unusable."""
        sampler = cls(**kwargs)
        try:
            diffs = np.asarray(data["diffs"], dtype=float)  # type: ignore[index]
            wins = np.asarray(data["no_legal_move_wins"], dtype=float)  # type: ignore[index]
            games = float(data.get("games", 0))  # type: ignore[union-attr]
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"komi statistics {source} are corrupt: {type(e).__name__}: {e}") from e
        if diffs.shape != sampler.diffs.shape or wins.shape != (2,) or not np.isfinite(diffs).all():
            raise ValueError(f"komi statistics {source} have the wrong shape")
        sampler.diffs, sampler.no_legal_move_wins, sampler.games = diffs, wins, games
        return sampler

    def __repr__(self) -> str:
        return (
            f"KomiSampler(games={self.games:.0f}, fair_komi={self.fair_komi()})"
            if self.games
            else "KomiSampler(no games)"
        )
