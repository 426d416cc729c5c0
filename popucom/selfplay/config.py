"""Self-play's settings: how many games at once, the visits of full and fast searches, the move
temperature, the random opening plies and the search overrides. Read wherever a run's config
is (the pipeline, `popucom selfplay`), so it imports only the compiled core, never numpy or torch;
the worker that plays by them is worker.py."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import _core
from ..search.params import search_params
from ..setting import OPENING_PLIES, number, one_of, setting, whole

# Self-play's search settings where they differ from the C++ defaults (_core.SearchParams,
# whose units are documented in csrc/search/params.h); every other field keeps its default.
SELFPLAY_SEARCH: dict[str, float | int | bool] = {
    "forced_playouts_k": 2.0,  # forced playouts at the root of full searches (PUCT root search)
    "score_utility_weight": 0.1,  # decided positions still rank moves by the margin
    "leaves_per_game": 2,
    # The last moves exact, at any temperature: with the search's own choice a fifth of
    # self-play games ended otherwise than their position 5-6 plies from the end was worth,
    # and the outcome is the value target of every position of the game.
    "endgame_solve_plies": 5,
    # A small share of the play default's budget, for a self-play move (the solver's rate:
    # docs/benchmarks.md, "Endgame solver"); past it the search's choice stands.
    "endgame_solve_max_nodes": 2_000_000,
    # No timed tries further out: a self-play move's time is the whole batch's.
    "endgame_try_plies": 0,
}
SETTING_CONTEXT = "self-play search setting"


@dataclass(frozen=True)
class SelfPlayConfig:
    concurrent_games: int = setting(128, whole(1, 1 << 16))
    # One visit only expands the root: no child is visited, so the policy target would be empty.
    full_visits: int = setting(64, whole(2, 1_000_000, " (a one-visit search visits no move: no policy target)"))
    fast_visits: int = setting(16, whole(1, "selfplay.full_visits", " (selfplay.full_visits)"))
    full_search_prob: float = setting(
        0.25, number(0, 1, low_open=True, why=" (at 0 no move is a full search: no policy targets)")
    )
    temperature_start: float = setting(0.8, number(0, 10))
    temperature_end: float = setting(0.2, number(0, 10))
    temperature_half_life: float = setting(6.0, number(0, 1000, low_open=True))  # plies
    max_random_plies: int = setting(4, whole(0, OPENING_PLIES))
    root_search: str = setting("puct", one_of(("puct", "gumbel")))  # + noise and forced playouts, or Gumbel
    # Overrides of SearchParams fields (see SELFPLAY_SEARCH); search_params() builds the params,
    # and SearchParams checks them.
    search: dict[str, float | int | bool] = field(default_factory=lambda: dict(SELFPLAY_SEARCH))
    cache_mb: float = setting(64.0, number(0, 1 << 20, low_open=True))
    search_threads: int = setting(1, whole(1, 1024))
    games_per_chunk: int = setting(64, whole(1, 1 << 20))

    def __post_init__(self) -> None:
        if self.root_search not in ("puct", "gumbel"):
            raise ValueError(f"root_search must be 'puct' or 'gumbel', not {self.root_search!r}")
        search_params(self.search, SETTING_CONTEXT)  # a bad key or value fails here, not in the first game

    def search_params(self) -> _core.SearchParams:
        """The search settings of self-play: SearchParams' defaults with `search` set on top."""
        return search_params(self.search, SETTING_CONTEXT)

    def with_search(self, **overrides: float | int | bool) -> SelfPlayConfig:
        """This config with more search overrides, e.g. with_search(gumbel_actions=8)."""
        return replace(self, search={**self.search, **overrides})

    @classmethod
    def from_dict(cls, data: dict) -> SelfPlayConfig:
        """A config as to_dict/asdict wrote it; SELFPLAY_SEARCH keys it lacks (settings added
        to self-play since) take their defaults. Configs written before `search` held the
        overrides (every SearchParams field that self-play set was a key of its own, as in
        weights/popucom-small-v1.run.json) load as the same settings: SELFPLAY_SEARCH updated
        with those keys, keeping the values that differ from the C++ defaults."""
        data = dict(data)
        if "search" in data:
            # Settings self-play gained after the config was written take their defaults.
            data["search"] = {**SELFPLAY_SEARCH, **data["search"]}
        flat = {name: data.pop(name) for name in _core.SearchParams.fields if name in data}
        if flat:
            defaults = _core.SearchParams()
            search = {**SELFPLAY_SEARCH, **data.get("search", {})}
            for name, value in flat.items():
                if getattr(search_params({name: value}, SETTING_CONTEXT), name) == getattr(defaults, name):
                    search.pop(name, None)
                else:
                    search[name] = value
            data["search"] = search
        return cls(**data)
