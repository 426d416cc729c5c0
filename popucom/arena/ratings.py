"""Bradley-Terry ratings fitted over all games at once, the Elo difference of a score, the
mean of per-game scores with its standard error, and an SPRT for gating.

Ratings are on the Elo scale (400 log10 odds) with one fixed anchor at 0.
The fit is a maximum-likelihood Newton solve with a weak Gaussian prior
(standard deviation `prior_elo`) that keeps a player with only wins finite;
95% intervals come from the inverse Hessian. A draw counts as half a win and
half a loss. `colour_ratings` rates each (player, colour) separately, because
the game is asymmetric.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .match import GameRecord

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log odds unit


@dataclass
class Rating:
    name: str
    elo: float
    low: float  # 95% interval
    high: float
    games: int


def fit_bradley_terry(
    results: list[tuple[str, str, float]], anchor: str, prior_elo: float = 400.0, iterations: int = 100
) -> dict[str, Rating]:
    """results: (player, opponent, score of player in [0, 1]). Returns ratings with 95% intervals."""
    names = sorted({p for p, _, _ in results} | {o for _, o, _ in results})
    if anchor not in names:
        raise ValueError(f"anchor '{anchor}' played no game")
    index = {n: i for i, n in enumerate(names)}
    free = [i for i, n in enumerate(names) if n != anchor]
    k = len(names)
    i_idx = np.array([index[p] for p, _, _ in results])
    j_idx = np.array([index[o] for _, o, _ in results])
    score = np.array([s for _, _, s in results], dtype=float)
    theta = np.zeros(k)  # natural-log odds units
    prior_var = (prior_elo / ELO) ** 2
    hessian = np.eye(k)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(theta[i_idx] - theta[j_idx])))
        grad = np.zeros(k)
        np.add.at(grad, i_idx, score - p)
        np.add.at(grad, j_idx, -(score - p))
        grad -= theta / prior_var
        w = p * (1 - p)
        hessian = np.zeros((k, k))
        np.add.at(hessian, (i_idx, i_idx), w)
        np.add.at(hessian, (j_idx, j_idx), w)
        np.add.at(hessian, (i_idx, j_idx), -w)
        np.add.at(hessian, (j_idx, i_idx), -w)
        hessian += np.eye(k) / prior_var
        h = hessian[np.ix_(free, free)]
        step = np.linalg.solve(h, grad[free])
        theta[free] += step
        if np.abs(step).max() < 1e-10:
            break
    cov = np.zeros((k, k))
    if free:
        cov[np.ix_(free, free)] = np.linalg.inv(hessian[np.ix_(free, free)])
    counts = {n: 0 for n in names}
    for p_name, o_name, _ in results:
        counts[p_name] += 1
        counts[o_name] += 1
    out = {}
    for n, i in index.items():
        elo = theta[i] * ELO
        half = 1.96 * math.sqrt(max(cov[i, i], 0.0)) * ELO
        out[n] = Rating(n, float(elo), float(elo - half), float(elo + half), counts[n])
    return out


def game_results(records: list[GameRecord]) -> list[tuple[str, str, float]]:
    return [(r.black, r.white, r.score_for(r.black)) for r in records]


def rate_players(records: list[GameRecord], anchor: str) -> dict[str, Rating]:
    return fit_bradley_terry(game_results(records), anchor)


def colour_ratings(records: list[GameRecord], anchor: str) -> dict[str, Rating]:
    """Ratings of "name/black" and "name/white", anchored at anchor/black."""
    results = [(f"{r.black}/black", f"{r.white}/white", r.score_for(r.black)) for r in records]
    return fit_bradley_terry(results, f"{anchor}/black")


def gap(results: list[tuple[str, str, float]], a: str, b: str, prior_elo: float = 400.0) -> Rating:
    """Rating of a relative to b (b anchored at 0) with its 95% interval."""
    return fit_bradley_terry(results, b, prior_elo)[a]


@dataclass
class SPRT:
    """Sequential probability ratio test on the score (normal approximation,
    as in Fishtest): H0 elo = elo0 against H1 elo = elo1."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @staticmethod
    def expected_score(elo: float) -> float:
        return 1.0 / (1.0 + 10 ** (-elo / 400.0))

    def llr(self, scores: list[float]) -> float:
        n = len(scores)
        if n < 2:
            return 0.0
        x = np.asarray(scores, dtype=float)
        mean, var = x.mean(), x.var()
        if var <= 0:
            var = 1e-3
        s0, s1 = self.expected_score(self.elo0), self.expected_score(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def decide(self, scores: list[float]) -> str:
        """'H1' (accept the new player), 'H0' (reject it) or 'continue'."""
        low, high = self.bounds()
        llr = self.llr(scores)
        return "H1" if llr >= high else "H0" if llr <= low else "continue"


def elo_from_score(score: float, clamp: float = 1e-6) -> float:
    """The Elo difference that gives this expected score (400 log10 odds). The score is first
    clamped to [clamp, 1 - clamp], so a clean sweep gives a large finite difference."""
    score = min(max(score, clamp), 1.0 - clamp)
    return ELO * math.log(score / (1.0 - score))


def mean_and_se(values: list[float]) -> tuple[float, float | None]:
    """The mean and its standard error (None for a single value)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial share (95% at z = 1.96): unlike the normal
    approximation it stays inside [0, 1] and is not empty at 0 or `trials` successes, where
    shares near the edge, a few blunders in many positions, sit. (0, 1) for no trials."""
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be from 0 to trials ({trials}), got {successes}")
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    centre = share + z * z / (2 * trials)
    spread = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)
