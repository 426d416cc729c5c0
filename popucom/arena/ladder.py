"""The strength ladder: fixed, seeded yardsticks that show whether a run learns.

A ladder point plays one model at a fixed visit count against each network-free
opponent (`greedy`, `uct:200`, `uct:2000`, `uct:10000` by default), every opening twice with
colours swapped. Calibration games between the bots themselves (played once
per ladder folder) tie the opponents to `random`, so that the Bradley-Terry
refit over every ladder game so far is anchored at `random` = 0. Per-iteration
evaluation stays cheap; the ladder is what tells the truth.

Layout of a ladder folder (`<run>/ladder/`):

    calibration.games.jsonl      bot-vs-bot games, written once
    <model>.games.jsonl          one file per ladder point, written atomically
    points.jsonl                 one line per point: model, iteration, wall hours, positions
    ratings.json                 the latest refit (Elo with 95% intervals, anchor random)
    curve.png                    rating against wall-clock hours and self-play positions
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..fileio import append_lines, json_lines, write_text_atomic
from ..player import Player
from .ladder_config import LadderConfig

if TYPE_CHECKING:
    from ..infer.contract import Evaluator
from .match import GameRecord, make_openings, play_match, read_records, records_jsonl, summarize
from .ratings import Rating, fit_bradley_terry, game_results

logger = logging.getLogger(__name__)


@dataclass
class LadderPoint:
    model: str
    iteration: int
    wall_hours: float  # the run's wall-clock hours (self-play + training + export + evaluation) at this model
    positions: int  # self-play positions written before this model was trained
    extra: dict = field(default_factory=dict)


class Ladder:
    def __init__(self, folder: str | Path, config: LadderConfig | None = None) -> None:
        self.folder = Path(folder)
        self.config = config or LadderConfig()

    @property
    def points_path(self) -> Path:
        return self.folder / "points.jsonl"

    def games_path(self, model: str) -> Path:
        return self.folder / f"{model}.games.jsonl"

    def openings(self) -> list[list[int]]:
        return make_openings(self.config.games // 2, self.config.opening_plies, self.config.seed)

    # --- playing ------------------------------------------------------------------
    def calibrate(self, progress: bool = False) -> None:
        path = self.folder / "calibration.games.jsonl"
        if path.exists():
            return
        openings = make_openings(self.config.calibration_games // 2, self.config.opening_plies, self.config.seed + 1)
        records: list[GameRecord] = []
        started = time.perf_counter()
        for k, (a, b) in enumerate(self.config.calibration):
            records += play_match(
                Player(a, bot=a, seed=k),
                Player(b, bot=b, seed=k + 100),
                openings,
                progress=progress,
                desc=f"ladder calibration {a} vs {b}",
            )
        write_text_atomic(path, records_jsonl(records))
        logger.info(f"ladder: calibration, {len(records)} bot games in {time.perf_counter() - started:.0f} s")

    def has_point(self, model: str) -> bool:
        return self.games_path(model).exists() and any(p.model == model for p in self.points())

    def play_point(
        self, point: LadderPoint, evaluator_factory: Callable[[], Evaluator], progress: bool = False
    ) -> dict[str, dict]:
        """Plays the model against every opponent and records the point; returns the summaries."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.calibrate(progress)
        name = point.model
        games_path = self.games_path(name)
        if not games_path.exists():
            openings = self.openings()
            model = Player(name, evaluator=evaluator_factory(), visits=self.config.visits, seed=self.config.seed)
            records: list[GameRecord] = []
            started = time.perf_counter()
            for k, opponent in enumerate(self.config.opponents):
                records += play_match(
                    model,
                    Player(opponent, bot=opponent, seed=self.config.seed + k),
                    openings,
                    progress=progress,
                    desc=f"ladder {name} vs {opponent}",
                )
            write_text_atomic(games_path, records_jsonl(records))
            logger.info(
                f"ladder: {name} at {self.config.visits} visits, {len(records)} games in "
                f"{time.perf_counter() - started:.0f} s"
            )
        records = read_records(games_path)
        if not any(p.model == name for p in self.points()):
            append_lines(self.points_path, json.dumps(asdict(point)) + "\n")
        return {opponent: summarize(records, name, opponent) for opponent in self.config.opponents}

    # --- reading and rating -----------------------------------------------------------
    def points(self) -> list[LadderPoint]:
        """The recorded points; a torn last line (a kill in the middle of an append) is skipped."""
        try:
            numbered = json_lines(self.points_path)
        except FileNotFoundError:
            return []
        points = []
        for number, line in numbered:
            try:
                points.append(LadderPoint(**json.loads(line)))
            except (ValueError, TypeError, RecursionError) as e:
                # Without the line the point is missing from the curve; its games are kept.
                raise ValueError(
                    f"{self.points_path}:{number}: malformed ladder point ({e}); fix or delete that line"
                ) from None
        return points

    def records(self) -> list[GameRecord]:
        records: list[GameRecord] = []
        for path in sorted(self.folder.glob("*.games.jsonl")):
            records += read_records(path, replay=True)
        return records

    def refit(self) -> dict[str, Rating]:
        """Bradley-Terry over every ladder game so far, anchored at `random` = 0; writes ratings.json."""
        # A wide prior: ladder ratings span thousands of Elo above random, and the default
        # 400-Elo prior would pull a strong model towards the anchor.
        ratings = fit_bradley_terry(game_results(self.records()), anchor=self.config.anchor, prior_elo=2000.0)
        write_text_atomic(
            self.folder / "ratings.json",
            json.dumps(
                {
                    "anchor": self.config.anchor,
                    "visits": self.config.visits,
                    "ratings": {name: asdict(r) for name, r in sorted(ratings.items(), key=lambda kv: kv[1].elo)},
                    "points": [asdict(p) for p in self.points()],
                },
                indent=1,
            )
            + "\n",
        )
        return ratings

    def plot(self, ratings: dict[str, Rating], title: str = "") -> Path | None:
        """The learning curve as a PNG: rating (95% interval) against wall hours and positions."""
        points = [p for p in self.points() if p.model in ratings]
        if not points:
            return None
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
        elo = [ratings[p.model].elo for p in points]
        err = [
            [ratings[p.model].elo - ratings[p.model].low for p in points],
            [ratings[p.model].high - ratings[p.model].elo for p in points],
        ]
        for ax, xs, label in (
            (axes[0], [p.wall_hours for p in points], "wall-clock hours"),
            (axes[1], [p.positions for p in points], "self-play positions"),
        ):
            ax.errorbar(xs, elo, yerr=err, marker="o", capsize=3, label=f"model at {self.config.visits} visits")
            for opponent in self.config.opponents:
                if opponent in ratings:
                    ax.axhline(ratings[opponent].elo, linestyle="--", linewidth=0.8, color="grey")
                    ax.annotate(
                        opponent, (ax.get_xlim()[0], ratings[opponent].elo), fontsize=8, color="grey", va="bottom"
                    )
            ax.set_xlabel(label)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel(f"Bradley-Terry Elo ({self.config.anchor} = 0)")
        axes[0].legend(loc="lower right", fontsize=8)
        fig.suptitle(title or "strength ladder")
        fig.tight_layout()
        path = self.folder / "curve.png"
        tmp = path.with_suffix(".png.tmp")
        fig.savefig(tmp, format="png", dpi=110)
        plt.close(fig)
        tmp.replace(path)
        return path
