"""The data files the browser app reads, generated from the Python package at build time so
that the page repeats no constant: `levels.json` (popucom/levels.py), `constants.json`
(popucom._core, popucom.limits and the engine's search defaults).

A level's network is named by its shipped version (`best`: the newest shipped model) and
travels with the site as `models/<version>.pcnet`, a network file written from the shipped
checkpoint (popucom.nn.native_file); the page searches with the same settings and visits as
`popucom engine --level NAME`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from errno import ENOENT
from pathlib import Path

from .. import __version__, _core
from ..levels import LEVELS, Level
from ..limits import MAX_KOMI, MAX_VISITS
from ..nn.native_file import NETWORK_FILE_SUFFIX
from ..player import MAX_TEMPERATURE, Player
from ..player_spec import DEFAULT_VISITS, parse_search_options
from ..search.game_search import SINGLE_GAME_LEAVES_PER_STEP, GameSearch
from ..weights import NAME_PATTERN, newest_model, weights_dir

MODELS_FOLDER = "models"  # inside the site


@dataclass(frozen=True)
class LevelModel:
    """A level's network: the shipped checkpoint, and the path of its network file inside the
    site."""

    checkpoint: Path
    site_path: str

    @property
    def onnx(self) -> Path:
        """The shipped ONNX model beside the checkpoint (the same network)."""
        return self.checkpoint.with_suffix(".onnx")


def level_model(level: Level) -> LevelModel:
    """The shipped network a level plays with. Raises ValueError for a level that is no shipped
    version (a bot or a file of its own: the page has only networks) and FileNotFoundError
    for a shipped version whose checkpoint is missing from the weights folder."""
    base = level.spec.partition("@")[0]
    if base == "best":
        source = newest_model()
        if source is None:
            why = f"level {level.name} plays the newest shipped model, and there is none (popucom-<preset>-v<N>.onnx)"
            raise FileNotFoundError(ENOENT, why, str(weights_dir()))
    elif NAME_PATTERN.match(base):
        source = weights_dir() / f"{base}.onnx"
    else:
        raise ValueError(f"level {level.name} plays '{base}', which is not a shipped network the page can load")
    checkpoint = source.with_suffix(".pt")
    if not checkpoint.is_file():
        raise FileNotFoundError(
            ENOENT, f"level {level.name} plays a shipped model whose checkpoint is missing", str(checkpoint)
        )
    return LevelModel(checkpoint, f"{MODELS_FOLDER}/{source.stem}{NETWORK_FILE_SUFFIX}")


def level_entry(level: Level) -> dict:
    """One level as the page reads it: its search settings (the spec's options, visits apart)
    and move temperature."""
    options = level.spec.partition("@")[2]
    search = parse_search_options(options, f"level {level.name}") if options else {}
    visits = int(search.pop("visits", DEFAULT_VISITS))
    return {
        "name": level.name,
        "rating": level.rating,
        "description": level.description,
        "model": level_model(level).site_path,
        "visits": visits,
        "params": search,
        "temperature": level.temperature,
        "temperature_plies": level.temperature_plies,
    }


def levels_json() -> list[dict]:
    """Every level, weakest first (popucom.levels.LEVELS order)."""
    return [level_entry(level) for level in LEVELS]


def _default(function: Callable[..., object], name: str) -> object:
    return inspect.signature(function).parameters[name].default


def constants_json() -> dict:
    """The board, the limits and the engine's search defaults (a session as `popucom engine`
    makes one: Player.session's cache and GameSearch's leaves per call and PV length)."""
    defaults = _core.SearchParams()
    return {
        "version": __version__,
        "board_size": _core.BOARD_SIZE,
        "num_squares": _core.NUM_SQUARES,
        "moves_per_player": _core.MOVES_PER_PLAYER,
        "max_game_plies": _core.MAX_GAME_PLIES,
        "match_length": _core.MATCH_LENGTH,
        "num_feature_planes": _core.NUM_FEATURE_PLANES,
        "feature_version": _core.FEATURE_VERSION,
        "network_file_magic": list(_core.NATIVE_NET_MAGIC),
        "max_komi": MAX_KOMI,
        "max_visits": MAX_VISITS,
        "max_temperature": MAX_TEMPERATURE,
        "default_visits": DEFAULT_VISITS,
        "leaves_per_step": SINGLE_GAME_LEAVES_PER_STEP,
        "cache_mb": _default(Player.session, "cache_mb"),
        "seed": _default(Player.__init__, "seed"),
        "pv_length": _default(GameSearch.__init__, "pv_length"),
        "search_params": {name: getattr(defaults, name) for name in _core.SearchParams.fields},
    }
