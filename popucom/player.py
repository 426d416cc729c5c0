"""A player ready to play: a network-free bot, or a network with its search settings and visits.

The arena, the engine and the GUI all play through it. A model player searches in one of two
ways: the arena plays many games of it at once, their leaves batched into one network call
(`many_games`, a fresh tree for every move, so that each move gets exactly its visits); the
engine and the GUI follow one game with a `session` (GameSearch), which keeps the tree across
both sides' moves and can ponder or stream analysis. Player specs, the text a user types,
are parsed in popucom/player_spec.py.

A model player plays the search's own choice (temperature 0) unless given a `temperature`:
then, for its game's first `temperature_plies` plies, it samples a move from the root's visit
counts, p ~ N^(1/T), so that a weak player (popucom/levels.py) varies its games and errs the
way a search with few visits errs, not by random legal moves.
"""

from __future__ import annotations

import math

from . import _core
from .infer.contract import Evaluator
from .player_spec import DEFAULT_VISITS, PlayerSpec, load_evaluator
from .search.batched import BatchedSearch
from .search.bot_session import BotSession
from .search.game_search import DEFAULT_ENDGAME_TABLE_MB, GameSearch

MAX_TEMPERATURE = 10.0  # p ~ N^(1/T) is all but uniform over the searched moves well before this


class Player:
    def __init__(
        self,
        name: str,
        *,
        bot: str | None = None,
        evaluator: Evaluator | None = None,
        visits: int = DEFAULT_VISITS,
        params: _core.SearchParams | None = None,
        leaves_per_step: int | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        temperature_plies: int = _core.MAX_GAME_PLIES,
    ) -> None:
        """A bot (its spec, e.g. "uct:2000") or a model player (its evaluator, visits a move and
        search settings: the core's play defaults if None). leaves_per_step: leaves per network
        call of a session (GameSearch's default if None). temperature: a model player's move
        sampling temperature for plies 0 .. temperature_plies - 1 of a game (0: the search's
        own choice)."""
        if (bot is None) == (evaluator is None):
            raise ValueError(f"player {name}: give a bot spec or an evaluator, not {'both' if bot else 'neither'}")
        if not (math.isfinite(temperature) and 0.0 <= temperature <= MAX_TEMPERATURE):
            raise ValueError(f"player {name}: temperature must be from 0 to {MAX_TEMPERATURE}, got {temperature}")
        if temperature > 0 and bot is not None:
            raise ValueError(f"player {name}: a bot has no visit counts to sample a move from (temperature)")
        self.name = name
        self.bot = _core.Bot(bot, seed=seed) if bot is not None else None
        self.evaluator = evaluator
        self.visits = visits
        self.params = params
        self.leaves_per_step = leaves_per_step
        self.seed = seed
        self.temperature = temperature
        self.temperature_plies = temperature_plies
        self._games: BatchedSearch | None = None

    @classmethod
    def from_spec(
        cls,
        spec: PlayerSpec | str,
        *,
        device: str = "cpu",
        threads: int = 1,
        seed: int = 0,
        evaluator: Evaluator | None = None,
        backend: str = "auto",
        name: str | None = None,
        temperature: float = 0.0,
        temperature_plies: int = _core.MAX_GAME_PLIES,
    ) -> Player:
        """The player a spec names (called `name` if given), its network loaded on `backend`
        (`auto`: the fastest here), or `evaluator`, for players that share one loaded network."""
        spec = PlayerSpec.parse(spec) if isinstance(spec, str) else spec
        if not spec.is_network:
            return cls(name or spec.name, bot=spec.source, seed=seed, temperature=temperature)
        return cls(
            name or spec.name,
            evaluator=evaluator if evaluator is not None else load_evaluator(spec, device, threads, backend),
            visits=spec.visits,
            params=spec.search_params(),
            leaves_per_step=int(spec.search["leaves_per_game"]) if "leaves_per_game" in spec.search else None,
            seed=seed,
            temperature=temperature,
            temperature_plies=temperature_plies,
        )

    @property
    def is_model(self) -> bool:
        return self.evaluator is not None

    @property
    def description(self) -> str:
        """What plays: the evaluator's own words (file, backend, precision) or the bot's spec."""
        if self.evaluator is None:
            return f"bot {self.name}"
        return self.evaluator.describe()

    def move_temperature(self, ply: int) -> float:
        """The temperature of this player's move at `ply` (plies played in the game so far)."""
        return self.temperature if ply < self.temperature_plies else 0.0

    def search_params(self) -> _core.SearchParams:
        """A copy of this player's search settings (a search may adjust its own)."""
        params = _core.SearchParams()
        if self.params is not None:
            for name in _core.SearchParams.fields:
                setattr(params, name, getattr(self.params, name))
        return params

    def play_moves(self, games: list[_core.Game], mine: list[int]) -> list[int]:
        """This player's move in each game of `mine` (indices into `games`), played into them
        and returned in that order: a bot's choice, or one search of them all together
        (many_games: fresh trees, exactly this player's visits each)."""
        if self.bot is not None:
            chosen = [self.bot.select_move(games[g].position) for g in mine]
            for g, move in zip(mine, chosen, strict=True):
                games[g].play(move)
            return chosen
        return self.many_games(len(games)).play_moves(games, mine, self.visits, self.move_temperature)

    def bot_move(self, position: _core.Position) -> int:
        if self.bot is None:
            raise ValueError(f"player {self.name} is a model: search with a session or many_games")
        return self.bot.select_move(position)

    def session(
        self, threads: int = 1, cache_mb: float = 64.0, endgame_table_mb: float = DEFAULT_ENDGAME_TABLE_MB
    ) -> GameSearch | BotSession:
        """A search of one game that keeps its tree and its exact solver's table (the engine's,
        the GUI's); threads are C++ tree-work threads, the network keeps its own budget. A bot's
        session has the same calls and picks its move where the game stands."""
        if self.evaluator is None:
            assert self.bot is not None
            return BotSession(self.bot)
        return GameSearch(
            self.evaluator,
            self.search_params(),
            cache_mb=cache_mb,
            threads=threads,
            leaves_per_step=self.leaves_per_step,
            seed=self.seed,
            endgame_table_mb=endgame_table_mb,
        )

    def many_games(self, num_games: int, cache_mb: float = 32.0) -> BatchedSearch:
        """The arena's search over `num_games` games at once. One per player, kept across its
        matches (its evaluation cache with it) and replaced by a bigger one when a match needs more."""
        if self.evaluator is None:
            raise ValueError(f"player {self.name} is a bot: it has no search")
        if self._games is None or self._games.search.num_games < num_games:
            self._games = BatchedSearch(
                self.evaluator, num_games, self.search_params(), cache_mb=cache_mb, seed=self.seed
            )
        return self._games
