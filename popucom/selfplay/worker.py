"""The self-play worker: G concurrent games through one BatchedSearch and one evaluator.

KataGo techniques (arXiv 1902.10565 and KataGo's docs/KataGoMethods.md):
- playout cap randomisation: a move gets a full search with probability
  `full_search_prob` (Dirichlet noise and forced playouts on, recorded as a
  training row) and a fast search otherwise (neither, not recorded); the
  root mode belongs to the one search that uses it (C++ RootMode);
- forced playouts at the root with policy target pruning (computed in C++),
  and moves sampled from the pruned counts;
- or, with `root_search="gumbel"`, Gumbel root search (Gumbel-Top-k with
  sequential halving; target softmax(logits + sigma(completed Q)));
- a move temperature decaying from `temperature_start` to `temperature_end`
  with a half-life in plies, and uniformly random opening plies for variety;
- adaptive komi (komi.py), sampled per game.

Finished games are written in chunks: a shard of training rows plus a JSON
lines file with one game record per line, both atomically, so a killed worker
loses at most the chunk in progress and never leaves half a file.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .. import _core
from ..data.records import outcome_fields, to_jsonl
from ..data.shards import FIELDS, black_outcome, concat_samples, samples_from_game, write_shard
from ..data.short_term import short_term_values
from ..fileio import write_text_atomic
from ..infer.contract import Evaluator
from ..search import BatchedSearch
from .config import SelfPlayConfig
from .komi import KomiSampler


@dataclass
class SelfPlayStats:
    games: int = 0
    positions: int = 0  # training rows written
    moves: int = 0
    nn_evals: int = 0
    seconds: float = 0.0
    eval_seconds: float = 0.0
    mean_batch: float = 0.0
    max_batch: int = 0
    cache_hit_rate: float = 0.0
    black_wins: int = 0
    white_wins: int = 0
    draws: int = 0
    # Root noise audit: recorded (full) searches that had noise in their priors,
    # and fast searches that had it (should be 0).
    full_searches: int = 0
    noisy_full_searches: int = 0
    noisy_fast_searches: int = 0
    chunks: list[str] = field(default_factory=list)

    @property
    def eval_share(self) -> float:
        return self.eval_seconds / self.seconds if self.seconds else 0.0

    def summary(self) -> dict:
        d = asdict(self)
        d.pop("chunks")
        d.update(
            games_per_s=self.games / self.seconds if self.seconds else 0.0,
            positions_per_s=self.positions / self.seconds if self.seconds else 0.0,
            moves_per_s=self.moves / self.seconds if self.seconds else 0.0,
            nn_evals_per_s=self.nn_evals / self.seconds if self.seconds else 0.0,
            eval_share=self.eval_share,
        )
        return d


def empty_rows() -> dict[str, np.ndarray]:
    """A chunk whose games had no full-search move still commits its records."""
    return {name: np.zeros((0, *shape), dtype=dtype) for name, (dtype, shape, _) in FIELDS.items()}


def temperature(ply: int, config: SelfPlayConfig) -> float:
    return config.temperature_end + (config.temperature_start - config.temperature_end) * 0.5 ** (
        ply / config.temperature_half_life
    )


@dataclass
class _GameInProgress:
    game: _core.Game
    random_plies: int
    full: bool = False
    positions: list = field(default_factory=list)
    policies: list = field(default_factory=list)
    # Every searched ply's root value and mover (the short-term value target reads the plies
    # after a recorded one), and the indices of the recorded (full-search) plies among them.
    root_values: list = field(default_factory=list)
    movers: list = field(default_factory=list)
    recorded: list = field(default_factory=list)


class SelfPlayWorker:
    """Plays games in the slots of one BatchedSearch and writes them in chunks
    `{prefix}-{n:05d}.pcs/.games.jsonl` (records first, shard last: the shard commits the chunk)."""

    def __init__(
        self,
        evaluator: Evaluator,
        config: SelfPlayConfig,
        out_dir: str | Path,
        prefix: str,
        games: int,
        komi: KomiSampler,
        komi_path: str | Path | None = None,
        seed: int = 0,
        first_chunk: int = 0,
        model_name: str = "",
    ) -> None:
        self.config = config
        self.params = config.search_params()
        self.out_dir = Path(out_dir)
        self.prefix = prefix
        self.games = games
        self.komi = komi
        self.komi_path = komi_path
        self.model_name = model_name
        self.rng = random.Random(seed)
        self.slots = max(1, min(config.concurrent_games, games))
        self.driver = BatchedSearch(
            evaluator,
            self.slots,
            self.params,
            cache_mb=config.cache_mb,
            threads=config.search_threads,
            seed=self.rng.getrandbits(63),
        )
        self.search = self.driver.search
        self.stats = SelfPlayStats(max_batch=self.search.max_batch)
        self.active: dict[int, _GameInProgress] = {}
        self.rows: list[dict[str, np.ndarray]] = []
        self.records: list[dict] = []
        self.chunk = first_chunk
        self.started = 0

    # --- one game's life --------------------------------------------------------------
    def start(self, slot: int) -> None:
        config, rng = self.config, self.rng
        game = _core.Game(self.komi.sample(rng))
        plies = rng.randint(0, config.max_random_plies)
        for _ in range(plies):
            if not game.is_over:
                game.play(rng.choice(game.legal_moves()))
        state = _GameInProgress(game, plies)
        self.active[slot] = state
        self.search.reset(slot, game.position)
        self.configure(slot, state)
        self.started += 1

    def configure(self, slot: int, state: _GameInProgress) -> None:
        """Playout cap randomisation: this move's search is full (noise, forced playouts,
        recorded) or fast (neither, not recorded); Gumbel mode replaces noise and forcing."""
        config = self.config
        state.full = self.rng.random() < config.full_search_prob
        gumbel = config.root_search == "gumbel"
        self.search.set_root_mode(
            slot,
            noise=state.full and not gumbel,
            forced_playouts=state.full and not gumbel and self.params.forced_playouts_k > 0,
            gumbel=gumbel,
        )
        self.search.set_visit_target(slot, config.full_visits if state.full else config.fast_visits)

    def move(self, slot: int, state: _GameInProgress) -> None:
        """The slot's search is done: record it if full, then play its move."""
        search, stats = self.search, self.stats
        noisy = search.root_mode(slot)["noise_applied"]
        if state.full:
            stats.full_searches += 1
            stats.noisy_full_searches += noisy
            state.recorded.append(len(state.root_values))
            state.positions.append(search.position(slot))
            state.policies.append(search.policy_target(slot))
        else:
            stats.noisy_fast_searches += noisy
        state.root_values.append(search.root_info(slot)["value"])
        state.movers.append(state.game.position.to_move)
        move = search.choose_move(slot, temperature(state.game.ply, self.config))
        state.game.play(move)
        search.play(slot, move)
        stats.moves += 1

    def finish(self, slot: int) -> None:
        state = self.active.pop(slot)
        final = state.game.position
        result = final.result
        outcome = outcome_fields(final)
        self.komi.record(final.score, outcome["result"] if outcome["end"] == "no_legal_move" else None)
        stats = self.stats
        stats.games += 1
        stats.black_wins += result == _core.Result.BLACK_WIN
        stats.white_wins += result == _core.Result.WHITE_WIN
        stats.draws += result == _core.Result.DRAW
        n = len(state.positions)
        if n:
            short_term = short_term_values(state.root_values, state.movers, black_outcome(result))[state.recorded]
            self.rows.append(
                samples_from_game(
                    state.positions,
                    np.stack(state.policies),
                    np.ones(n, bool),
                    final,
                    self.rng.getrandbits(64),
                    short_term_value=short_term,
                )
            )
            stats.positions += n
        self.records.append(
            {
                "moves": state.game.record,
                "komi": final.komi,
                **outcome,
                "random_plies": state.random_plies,
                "black": self.model_name,
                "white": self.model_name,
            }
        )
        if len(self.records) >= self.config.games_per_chunk:
            self.flush()

    def flush(self) -> None:
        if not self.records:
            return
        name = f"{self.prefix}-{self.chunk:05d}"
        write_text_atomic(self.out_dir / f"{name}.games.jsonl", to_jsonl(self.records))
        write_shard(
            self.out_dir / f"{name}.pcs",
            concat_samples(self.rows) if self.rows else empty_rows(),
            meta={"model": self.model_name, "games": len(self.records)},
        )
        if self.komi_path is not None:
            self.komi.save(self.komi_path)
        self.stats.chunks.append(name)
        self.chunk += 1
        self.rows, self.records = [], []

    # --- the loop -------------------------------------------------------------------------
    def step(self) -> int:
        """One batched search step, then every finished search moves; returns moves played."""
        self.driver.step()
        played = 0
        for slot in self.search.done_games():
            state = self.active.get(slot)
            if state is None:
                continue
            self.move(slot, state)
            played += 1
            if not state.game.is_over:
                self.configure(slot, state)
            else:
                self.finish(slot)
                if self.started < self.games:
                    self.start(slot)
                else:
                    self.search.set_visit_target(slot, 0)
        return played

    def run(self, progress: bool = True) -> SelfPlayStats:
        from tqdm import tqdm

        for slot in range(self.slots):
            self.start(slot)
        # Games start together and end together, so the bar counts moves (about
        # 50 - random plies per game) for a steady rate and an honest ETA.
        expected_moves = self.games * (_core.MAX_GAME_PLIES - self.config.max_random_plies / 2)
        bar = tqdm(
            total=round(expected_moves),
            desc="self-play",
            unit="move",
            disable=not progress,
            dynamic_ncols=True,
        )
        begin = time.perf_counter()
        stats, timings = self.stats, self.driver.timings
        while stats.games < self.games:
            bar.update(self.step())
            elapsed = max(time.perf_counter() - begin, 1e-9)
            bar.set_postfix_str(
                f"games {stats.games}/{self.games}, {stats.moves / elapsed:.1f} moves/s, "
                f"{timings.leaves / elapsed:.0f} evals/s, batch {timings.mean_batch:.0f}/{self.search.max_batch}, "
                f"cache {self.driver.cache.hit_rate:.0%}",
                refresh=False,
            )
        bar.n = bar.total
        bar.close()
        self.flush()
        stats.seconds = time.perf_counter() - begin
        stats.nn_evals = timings.leaves
        stats.eval_seconds = timings.eval_s
        stats.mean_batch = timings.mean_batch
        stats.cache_hit_rate = self.driver.cache.hit_rate
        return stats


def run_selfplay(
    evaluator: Evaluator,
    config: SelfPlayConfig,
    out_dir: str | Path,
    prefix: str,
    games: int,
    komi: KomiSampler,
    komi_path: str | Path | None = None,
    seed: int = 0,
    first_chunk: int = 0,
    model_name: str = "",
    progress: bool = True,
) -> SelfPlayStats:
    """Plays `games` games and writes them as chunks `{prefix}-{n:05d}.pcs/.games.jsonl` in out_dir."""
    return SelfPlayWorker(
        evaluator, config, out_dir, prefix, games, komi, komi_path, seed, first_chunk, model_name
    ).run(progress)
