"""Players of the arena: network-free bots and searching models, one tree per game.
Player specs (the text a user types) are parsed in popucom/player_spec.py."""

from __future__ import annotations

from .. import _core
from ..infer.contract import Evaluator
from ..player_spec import DEFAULT_VISITS, PlayerSpec, load_evaluator
from ..search import BatchedSearch

__all__ = ["DEFAULT_VISITS", "Player", "PlayerSpec", "load_evaluator"]


class Player:
    """Moves for a set of concurrent games. Search players keep one tree per game."""

    def __init__(
        self,
        name: str,
        num_games: int,
        bot: str | None = None,
        evaluator: Evaluator | None = None,
        visits: int = DEFAULT_VISITS,
        seed: int = 0,
        cache_mb: float = 32.0,
        params: _core.SearchParams | None = None,
    ) -> None:
        """params: the search settings of a model player (default: the core's play defaults)."""
        self.name = name
        self.bot = _core.Bot(bot, seed=seed) if bot else None
        self.driver = None
        if evaluator is not None:
            self.driver = BatchedSearch(
                evaluator, num_games, params or _core.SearchParams(), cache_mb=cache_mb, seed=seed
            )
            self.visits = visits
        elif self.bot is None:
            raise ValueError("a player needs a bot spec or an evaluator")

    @property
    def searches(self) -> bool:
        return self.driver is not None
