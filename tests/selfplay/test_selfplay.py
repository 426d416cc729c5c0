"""Self-play search modes: root noise belongs to the search that uses it, policy
targets (pruned visits, Gumbel completed-Q) come from C++, Gumbel root search."""

import json
import pickle

import numpy as np
import pytest

import popucom
from popucom import _core
from popucom.experiments import endgame
from popucom.infer import TinyEvaluator, UniformEvaluator
from popucom.search import BatchedSearch
from popucom.selfplay import KomiSampler, SelfPlayConfig, run_selfplay


def driver(params: _core.SearchParams | None = None, games: int = 1, seed: int = 0) -> BatchedSearch:
    return BatchedSearch(TinyEvaluator(), games, params or _core.SearchParams(), cache_mb=1, seed=seed)


def test_every_recorded_search_is_noisy_and_no_fast_one(tmp_path) -> None:
    config = SelfPlayConfig(
        concurrent_games=8, full_visits=24, fast_visits=6, full_search_prob=0.3, games_per_chunk=20, max_random_plies=2
    )
    stats = run_selfplay(TinyEvaluator(), config, tmp_path, "n", 12, KomiSampler(), progress=False)
    assert stats.full_searches > 30
    assert stats.noisy_full_searches == stats.full_searches
    assert stats.noisy_fast_searches == 0


def test_noise_is_taken_out_when_the_next_search_is_fast() -> None:
    d = driver()
    s = d.search
    s.reset(0, popucom.Position())
    s.set_root_mode(0, noise=True, forced_playouts=True)
    s.set_visit_target(0, 64)
    d.run()
    assert s.root_mode(0)["noise_applied"]
    noisy_priors = {m["move"]: m["prior"] for m in s.move_infos(0, 1)}
    s.set_root_mode(0, noise=False)
    raw_priors = {m["move"]: m["prior"] for m in s.move_infos(0, 1)}
    assert not s.root_mode(0)["noise_applied"] and noisy_priors != raw_priors
    # play() returns to the defaults: a noisy search never leaks into the next move
    s.set_root_mode(0, noise=True)
    s.play(0, s.choose_move(0, 0.0))
    assert s.root_mode(0) == {"noise": False, "forced_playouts": False, "gumbel": False, "noise_applied": False}


def test_pruned_target_takes_back_forced_visits() -> None:
    params = _core.SearchParams()
    params.forced_playouts_k = 2.0
    d = driver(params)
    s = d.search
    s.reset(0, popucom.Position.setup(black_stones="d5 f5", white_stones="b5"))
    s.set_root_mode(0, noise=True, forced_playouts=True)
    s.set_visit_target(0, 200)
    d.run()
    visits = s.visit_counts(0)
    pruned = s.policy_target(0)
    assert abs(pruned.sum() - 1) < 1e-5
    shares = visits / visits.sum()
    best = int(np.argmax(visits))
    assert pruned[best] >= shares[best]  # the best move keeps all its visits
    assert (pruned[visits <= 1] == 0).all()
    # relative to the best move, every other move only loses visits, and some lose some
    relative_pruned, relative_visits = pruned / pruned[best], visits / visits[best]
    assert (relative_pruned <= relative_visits + 1e-6).all()
    assert (relative_pruned < relative_visits - 1e-3).any()
    s.set_root_mode(0, noise=True, forced_playouts=False)
    assert np.allclose(s.policy_target(0), shares, atol=1e-6)


def test_gumbel_root_search_finds_the_winning_line_and_gives_a_completed_q_target() -> None:
    params = _core.SearchParams()
    params.gumbel_actions = 8
    d = driver(params)
    s = d.search
    # Black to move completes a line of three (d5 e5 f5) and paints the row.
    position = popucom.Position.setup(black_stones="d5 f5", white_stones="b5 h2")
    s.reset(0, position)
    s.set_root_mode(0, gumbel=True)
    s.set_visit_target(0, 64)
    d.run()
    assert s.visits(0) >= 64
    target = s.policy_target(0)
    assert abs(target.sum() - 1) < 1e-5 and (target > 0).sum() == len(position.legal_moves())
    visited = [m for m in s.move_infos(0, 1) if m["visits"] > 0]
    assert 2 <= len(visited) <= 8  # only the Gumbel-Top-k moves are searched at the root
    move = s.choose_move(0, 1.0)
    assert move in position.legal_moves()
    # completed-Q target favours the better-valued visited moves over their priors
    best_q = max(visited, key=lambda m: m["utility"])
    assert target[best_q["move"]] >= max(target[m["move"]] for m in visited) - 1e-6


def test_gumbel_selfplay_runs(tmp_path) -> None:
    config = SelfPlayConfig(
        concurrent_games=6,
        full_visits=16,
        fast_visits=4,
        full_search_prob=0.5,
        games_per_chunk=20,
        root_search="gumbel",
    ).with_search(gumbel_actions=4)
    stats = run_selfplay(UniformEvaluator(), config, tmp_path, "g", 6, KomiSampler(), progress=False)
    assert stats.games == 6 and stats.positions > 0 and stats.noisy_full_searches == 0
    with pytest.raises(ValueError, match="root_search"):
        SelfPlayConfig(root_search="mcts")
    with pytest.raises(ValueError, match="self-play search setting: SearchParams.leaves_per_game = 0"):
        config.with_search(leaves_per_game=0)  # refused with the config, not in the first game


def test_one_multisearch_shared_by_two_threads_is_refused_not_corrupted() -> None:
    import threading

    d = driver(games=64)
    s = d.search
    for g in range(64):
        s.reset(g, popucom.Position())
    s.set_visit_targets(100_000)
    errors = []

    def work() -> None:
        try:
            for _ in range(200):
                d.step()
        except RuntimeError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors and all("in use by another thread" in e or "not been backed up" in e for e in errors)
    # the trees survived: after the last batch is settled, nothing is in flight
    if s.pending:
        s.cancel_pending()
    assert s.total_in_flight() == 0


@pytest.mark.parametrize("solve_plies", [5, 0])
def test_selfplay_plays_its_last_moves_exactly(tmp_path, solve_plies: int) -> None:
    # A clueless evaluator and four visits blunder endgames often; the solver
    # makes every result the exact value of the position five plies out.
    config = SelfPlayConfig(
        concurrent_games=8, full_visits=4, fast_visits=2, full_search_prob=0.5, games_per_chunk=24
    ).with_search(endgame_solve_plies=solve_plies)
    run_selfplay(UniformEvaluator(), config, tmp_path, "e", 24, KomiSampler(), progress=False)
    # popucom.experiments.endgame --outcomes: results against the exact value five plies from the end
    outcomes = endgame.outcomes_against_exact(endgame.read_outcome_records(list(tmp_path.glob("*.games.jsonl"))), [5])
    games, misses = outcomes["games"], outcomes["differ"]["5"]
    assert games >= 12
    if solve_plies:
        assert misses == 0
    else:
        assert misses > 0  # the control: without the solver the endgames are blundered


def test_komi_statistics_round_trip_through_a_file_and_a_dict(tmp_path):
    sampler = KomiSampler()
    for diff in (3, -1, 3, 0):
        sampler.record(diff)
    sampler.record(0, no_legal_move_winner="white")
    sampler.save(tmp_path / "komi.json")
    loaded = KomiSampler.load(tmp_path / "komi.json")
    from_dict = KomiSampler.from_dict(json.loads((tmp_path / "komi.json").read_text()))
    # what the Ray driver hands its actors, through Ray's own (pickle) serialisation
    shipped = KomiSampler.from_dict(pickle.loads(pickle.dumps(sampler.to_dict())))
    for other in (loaded, from_dict, shipped):
        assert np.array_equal(other.diffs, sampler.diffs)
        assert np.array_equal(other.no_legal_move_wins, sampler.no_legal_move_wins)
        assert other.games == sampler.games and other.fair_komi() == sampler.fair_komi()


@pytest.mark.parametrize("data", [[1, 2], {"diffs": "x"}, {"diffs": [0.0] * 3, "no_legal_move_wins": [0, 0]}, None])
def test_unusable_komi_statistics_are_refused_by_name(tmp_path, data):
    with pytest.raises(ValueError, match="sidecar.json"):
        KomiSampler.from_dict(data, source="sidecar.json")
    (tmp_path / "komi.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="komi.json"):
        KomiSampler.load(tmp_path / "komi.json")
    (tmp_path / "komi.json").write_text('{"diffs": [')
    with pytest.raises(ValueError, match="corrupt"):
        KomiSampler.load(tmp_path / "komi.json")
