"""Self-play's settings: how many games at once, the visits of full and fast searches, the move
temperature, the random opening plies and the search overrides. Read wherever a run's config
is (the pipeline, `popucom selfplay`), so it imports only the compiled core, never numpy or torch;
the worker that plays by them is worker.py."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import _core
from ..search.params import search_params

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
    concurrent_games: int = 128
    full_visits: int = 64
    fast_visits: int = 16
    full_search_prob: float = 0.25
    temperature_start: float = 0.8
    temperature_end: float = 0.2
    temperature_half_life: float = 6.0  # plies
    max_random_plies: int = 4
    root_search: str = "puct"  # "puct" (+ noise, forced playouts) or "gumbel"
    # Overrides of SearchParams fields (see SELFPLAY_SEARCH); search_params() builds the params.
    search: dict[str, float | int | bool] = field(default_factory=lambda: dict(SELFPLAY_SEARCH))
    cache_mb: float = 64.0
    search_threads: int = 1
    games_per_chunk: int = 64

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
