"""Difficulty levels: named players from the weakest to the play default, for the engine
(`popucom engine --level NAME`, GTP `popucom-level NAME`) and the GUI (the Difficulty menu).

Each level is a player spec (popucom/player_spec.py) and, where a search alone would play too
well or too alike, a move temperature for its game's first plies (Player.move_temperature):
the weak end plays an old shipped version with a few visits, sampling among the moves its
short search looked at, so that it errs and varies the way a weak player does. `strongest` is
the play default: `best` at the engine's default visits.

`rating` is each level's Bradley-Terry Elo on one scale with the network-free bots and the
shipped versions (random = 0), measured by `python -m popucom.experiments.levels`
(docs/play_settings.md, "Difficulty levels"); the table is ordered by it. `best` moves on when
a version ships, so `strongest` is measured again then (the other levels name their versions
and the exact-endgame horizon they were rated with, 6 plies and no tries further out, so that
a new play default leaves them as rated; `strongest` was rated at 6 and now plays exactly from 9).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _core
from .player import Player
from .player_spec import PlayerSpec
from .weights import NAME_PATTERN, weights_dir, where_to_find


@dataclass(frozen=True)
class Level:
    name: str
    spec: str  # a player spec (a bot, `best`, a model file), or a shipped version's name for the file
    rating: int  # Bradley-Terry Elo, random = 0 (popucom.experiments.levels)
    description: str  # one line, for --help and the engine's level list
    temperature: float = 0.0  # move sampling temperature (0: the search's own choice) ...
    temperature_plies: int = _core.MAX_GAME_PLIES  # ... for plies 0 .. temperature_plies - 1

    def player_spec(self) -> PlayerSpec:
        """The spec parsed, `best` resolved to the newest shipped model and a shipped version's
        name (popucom-small-v1@visits=8) to its file in the weights folder."""
        base, at, options = self.spec.partition("@")
        if NAME_PATTERN.match(base):
            shipped = weights_dir() / f"{base}.pt"  # the checkpoint, as `best` plays (newest_for_cpu)
            if not shipped.is_file() and not shipped.with_suffix(".onnx").is_file():
                raise FileNotFoundError(
                    f"level {self.name} plays {base}, which is not in {shipped.parent}: {where_to_find(base)}"
                )
            base = str(shipped if shipped.is_file() else shipped.with_suffix(".onnx"))
        return PlayerSpec.parse(base + at + options)

    @property
    def player_name(self) -> str:
        """The player this level is, as game records name it: the spec's player name and the
        temperature, so a level whose settings change is a new player, never mixed with the old."""
        name = self.player_spec().name
        if self.temperature > 0:
            name += f",temperature={self.temperature:g}"
            if self.temperature_plies < _core.MAX_GAME_PLIES:
                name += f",temperature_plies={self.temperature_plies}"
        return name

    def player(self, threads: int = 1, seed: int = 0, device: str = "cpu", backend: str = "auto") -> Player:
        """This level as a Player (its network loaded on `backend`), named player_name."""
        return Player.from_spec(
            self.player_spec(),
            device=device,
            backend=backend,
            threads=threads,
            seed=seed,
            name=self.player_name,
            temperature=self.temperature,
            temperature_plies=self.temperature_plies,
        )


LEVELS: tuple[Level, ...] = (
    Level(
        "beginner",
        "popucom-small-v1@visits=8,endgame_solve_plies=0,root_noise=true,dirichlet_epsilon=0.5",
        811,
        "the first shipped model, 8 visits with half its root priors noise, every move sampled",
        temperature=1.0,
    ),
    Level(
        "novice",
        "popucom-small-v1@visits=8,endgame_solve_plies=0",
        1130,
        "the first shipped model at 8 visits without exact endgames, its first 35 plies sampled",
        temperature=1.0,
        temperature_plies=35,
    ),
    Level(
        "casual",
        "popucom-small-v1@visits=8,endgame_solve_plies=6,endgame_try_plies=0",
        1340,
        "the first shipped model at 8 visits, its first 10 plies sampled",
        temperature=1.0,
        temperature_plies=10,
    ),
    Level(
        "intermediate",
        "popucom-small-v2@visits=8,endgame_solve_plies=6,endgame_try_plies=0",
        1468,
        "the second shipped model at 8 visits, its first 8 plies sampled",
        temperature=1.0,
        temperature_plies=8,
    ),
    Level(
        "advanced",
        "popucom-small-v4@visits=16,endgame_solve_plies=6,endgame_try_plies=0",
        1633,
        "the fourth shipped model at 16 visits, its first 8 plies sampled",
        temperature=1.0,
        temperature_plies=8,
    ),
    Level(
        "expert",
        "popucom-small-v11@visits=16,endgame_solve_plies=6,endgame_try_plies=0",
        1848,
        "the eleventh shipped model at 16 visits, its first 8 plies sampled at half temperature",
        temperature=0.5,
        temperature_plies=8,
    ),
    Level("strongest", "best", 2005, "the newest shipped model at the engine's default 100 visits (the play default)"),
)

STRONGEST = LEVELS[-1]


def level_names() -> list[str]:
    return [level.name for level in LEVELS]


def level_named(name: str) -> Level:
    """The level called `name`; ValueError listing the levels for any other name."""
    for level in LEVELS:
        if level.name == name:
            return level
    raise ValueError(f"unknown level '{name[:100]}': choose one of {', '.join(level_names())}")
