"""The strength ladder's settings: the model's visits, the games per opponent, the opponents and
the calibration pairs that anchor them, how often a point is played. Read wherever a run's
config is, so it imports nothing but the standard library; the ladder itself is ladder.py."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class LadderConfig:
    visits: int = 100  # the model's visits per move at every point, fixed for the whole run
    games: int = 64  # per opponent: games / 2 openings, each played with both colours
    # uct:10000 joined when the first hour's models scored ~0.9 against uct:2000 at 50 visits.
    opponents: tuple[str, ...] = ("greedy", "uct:200", "uct:2000", "uct:10000")
    opening_plies: int = 2
    seed: int = 20261130  # the same openings at every point
    anchor: str = "random"
    # Bot pairs whose games tie the opponents to the anchor; played once per ladder folder.
    calibration: tuple[tuple[str, str], ...] = (
        ("random", "greedy"),
        ("random", "uct:200"),
        ("greedy", "uct:200"),
        ("uct:200", "uct:2000"),
        ("greedy", "uct:2000"),
        ("uct:2000", "uct:10000"),
    )
    calibration_games: int = 64
    every_minutes: float = 20.0  # pipeline: a point when this much wall time has passed since the last
    threads: int = 1  # the model's inference threads

    def __post_init__(self) -> None:
        if self.games < 2 or self.games % 2:
            raise ValueError(f"ladder games must be an even number >= 2, got {self.games}")
        if self.visits < 1:
            raise ValueError(f"ladder visits must be >= 1, got {self.visits}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> LadderConfig:
        data = dict(data)
        for key in ("opponents", "calibration"):
            if key in data:
                data[key] = tuple(tuple(x) if isinstance(x, list) else x for x in data[key])
        return cls(**data)
