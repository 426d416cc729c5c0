"""The GUI's AI: an opponent (a model searched by GameSearch, or a network-free bot) and the
bridge that runs it off the UI thread and hands results back as queued Qt signals.

Every request carries a token; the window ignores signals whose token is stale (the user
navigated away, or a new search started), so a late result can never land on the wrong node.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from .. import _core
from ..levels import Level
from ..player import Player
from ..player_spec import PlayerSpec
from ..search.bot_session import BotSession
from ..search.game_search import GameSearch
from ..weights import newest_for_cpu, weights_dir, where_to_find
from .difficulty import level_title

BOTS = ("uct:2000", "uct:200", "greedy", "random")
DEFAULT_BOT = "uct:2000"


def default_opponent() -> tuple[str, str | None]:
    """The newest shipped model (popucom.weights) and no notice; else a strong network-free bot
    and the notice that says so, where the model was looked for and how to point at one."""
    try:
        model = newest_for_cpu()
    except ValueError as e:  # versions of several presets, none of them `best`'s
        return DEFAULT_BOT, f"{e}: the opponent is the {DEFAULT_BOT} bot"
    if model is not None:
        return str(model), None
    return DEFAULT_BOT, (
        f"no shipped model in {weights_dir()} ({where_to_find('popucom-<preset>-v<N>.onnx')}, "
        f"or give --opponent MODEL): the opponent is the {DEFAULT_BOT} bot"
    )


def bot_title(spec: str) -> str:
    """A bot spec as the opponent list shows it, in the GUI's language; the spec itself (what
    `--opponent` takes) stays visible in every language."""
    translate = QCoreApplication.translate
    name, _, visits = spec.partition(":")
    if name == "uct" and visits:
        return translate("Opponent", "uct:{visits}", "a tree-search bot with this many visits").format(visits=visits)
    if name == "greedy":
        return translate("Opponent", "greedy", "a bot taking the best immediate floor difference")
    if name == "random":
        return translate("Opponent", "random", "a bot playing random legal moves")
    return spec


@dataclass
class Opponent:
    spec: str  # a bot spec or a model path (a level's own spec for a level)
    search: GameSearch | BotSession  # its session: one game's search, or a bot's move
    model_description: str = ""  # the evaluator's own words (file, backend, precision); "" for a bot
    level: Level | None = None  # the difficulty level this opponent is, if any
    player: Player | None = None
    model_file: str = ""  # the network's file, where `spec` does not name it (a level's)

    @property
    def analyzes(self) -> bool:
        """Whether it can analyse a position (a model's search), which a bot cannot."""
        return self.search.analyzes

    def move_temperature(self, ply: int) -> float:
        """The temperature of its move at `ply` (0 but for a level that samples its moves)."""
        return self.player.move_temperature(ply) if self.player is not None else 0.0

    @property
    def description(self) -> str:
        """For the status bar, in the GUI's language at the time of asking."""
        translate = QCoreApplication.translate
        if self.analyzes:
            played = translate("Opponent", "{model} on {backend}").format(
                model=Path(self.model_file or self.spec).name, backend=self.model_description
            )
        else:
            played = translate("Opponent", "bot {name}").format(name=bot_title(self.spec))
        if self.level is not None:
            return translate("Opponent", "level {level}: {player}").format(level=level_title(self.level), player=played)
        return played


def make_opponent(spec: str, network_threads: int = 1, search_threads: int = 1, level: Level | None = None) -> Opponent:
    """A player spec (popucom.player_spec: a bot, `best` or a model file), or a difficulty
    `level` (then `spec` is its spec), as the GUI's opponent; the GUI sets the visits itself.
    Raises ValueError (or FileNotFoundError / RuntimeError) saying why it is unusable."""
    parsed = level.player_spec() if level is not None else PlayerSpec.parse(spec)
    if level is not None:
        spec, player = level.spec, level.player(threads=network_threads)
    else:
        player = Player.from_spec(parsed, threads=network_threads)
    search = player.session(threads=search_threads, cache_mb=64.0)
    return Opponent(
        spec,
        search=search,
        model_description=player.description if player.is_model else "",
        level=level,
        player=player,
        model_file=parsed.source if player.is_model else "",
    )


class SearchBridge(QObject):
    """Runs the opponent's searches in worker threads; results come back as signals."""

    snapshot = Signal(object, int)  # AnalysisResult, token (throttled at the source: report_every_s)
    moveChosen = Signal(int, object, int)  # move, final AnalysisResult or None (bots), token
    analysisDone = Signal(object, int)
    failed = Signal(str, int)

    def __init__(self, opponent: Opponent, report_every_s: float = 0.1) -> None:
        super().__init__()
        self.opponent = opponent
        self.report_every_s = report_every_s

    def set_opponent(self, opponent: Opponent) -> None:
        self.stop()
        self.opponent = opponent

    def think(self, position: _core.Position, token: int, visits: int | None, seconds: float | None) -> None:
        """Chooses a move for the side to move; emits snapshots (a model's) and then moveChosen
        (with the final snapshot where the opponent analyzes, None for a bot's move)."""
        self.stop()
        gs = self.opponent.search
        temperature = self.opponent.move_temperature(position.ply)
        gs.set_position(position)
        gs.start(
            visits=visits,
            seconds=seconds,
            report_every_s=self.report_every_s,
            callback=lambda r: self.snapshot.emit(r, token),
            # the tree's own choice (LCB among well-visited moves, as the engine and the arena
            # play), which need not be the most visited move of the final snapshot; a level
            # that samples its early moves samples them from the tree's visits
            on_done=lambda r: self.moveChosen.emit(gs.move_to_play(r, temperature), r if gs.analyzes else None, token),
            on_error=lambda e: self.failed.emit(f"{type(e).__name__}: {e}", token),
        )

    def analyze(self, position: _core.Position, token: int) -> None:
        """Searches `position` until stopped, emitting snapshots."""
        self.stop()
        gs = self.opponent.search
        gs.set_position(position)  # a bot's session refuses at start: it has nothing to analyse
        gs.start(
            report_every_s=self.report_every_s,
            callback=lambda r: self.snapshot.emit(r, token),
            on_done=lambda r: self.analysisDone.emit(r, token),
            on_error=lambda e: self.failed.emit(f"{type(e).__name__}: {e}", token),
        )

    def stop(self) -> None:
        """Stops a model's search (its final result is still emitted); a bot's move cannot be
        interrupted, its result is ignored through the token."""
        self.opponent.search.stop()

    def forget(self) -> None:
        """Stops a model's search and throws its tree away (a new game): the memory of a long
        analysis goes back at once, not at the next search."""
        self.opponent.search.clear()

    @property
    def busy(self) -> bool:
        return self.opponent.search.running

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stops the search and waits up to `timeout` for a bot still choosing its move."""
        self.stop()
        deadline = time.monotonic() + timeout
        while self.busy and time.monotonic() < deadline:
            time.sleep(0.01)
