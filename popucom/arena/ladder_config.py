"""The strength ladder's settings: the model's visits, the games per opponent, the opponents and
the calibration pairs that anchor them, how often a point is played. Read wherever a run's
config is, so it imports nothing but the standard library; the ladder itself is ladder.py."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..setting import ANCHOR, BOT_PAIRS, BOTS, OPENING_PLIES, SEED, even, number, setting, whole


@dataclass(frozen=True)
class LadderConfig:
    visits: int = setting(100, whole(1, 1_000_000))  # the model's visits per move at every point, fixed for the run
    games: int = setting(64, even(2))  # per opponent: games / 2 openings, each played with both colours
    # uct:10000 joined when the first hour's models scored ~0.9 against uct:2000 at 50 visits.
    opponents: tuple[str, ...] = setting(("greedy", "uct:200", "uct:2000", "uct:10000"), BOTS)
    opening_plies: int = setting(2, whole(0, OPENING_PLIES))
    seed: int = setting(20261130, SEED)  # the same openings at every point
    anchor: str = setting("random", ANCHOR)
    # Bot pairs whose games tie the opponents to the anchor; played once per ladder folder.
    calibration: tuple[tuple[str, str], ...] = setting(
        (
            ("random", "greedy"),
            ("random", "uct:200"),
            ("greedy", "uct:200"),
            ("uct:200", "uct:2000"),
            ("greedy", "uct:2000"),
            ("uct:2000", "uct:10000"),
        ),
        BOT_PAIRS,
    )
    calibration_games: int = setting(64, even(2))
    # pipeline: a point when this much wall time has passed since the last
    every_minutes: float = setting(20.0, number(0, 1e6))
    threads: int = setting(1, whole(1, 1024))  # the model's inference threads

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
