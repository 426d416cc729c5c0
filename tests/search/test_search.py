"""The search from Python: exact endgames, determinism, batching, the eval
cache, analysis, the baseline bots and bad input."""

import threading

import numpy as np
import pytest

import popucom
from popucom import Color, Position, _core
from popucom.infer import EvalOutput, TinyEvaluator, UniformEvaluator
from popucom.search import BatchedSearch, analyze

PLANES = {name: i for i, (name, _) in enumerate(popucom.FEATURE_PLANES)}


def position_from_features(f: np.ndarray) -> Position:
    """Rebuilds the position an input row encodes (which also checks the encoder is lossless)."""

    def squares(plane: str) -> list[int]:
        return [int(s) for s in np.flatnonzero(f[PLANES[plane]].reshape(-1) > 0.5)]

    black_to_move = f[PLANES["black_to_move"], 0, 0] > 0.5
    own_left = round(float(f[PLANES["own_moves_left"], 0, 0]) * 25)
    opp_left = round(float(f[PLANES["opponent_moves_left"], 0, 0]) * 25)
    own_komi = round(float(f[PLANES["komi"], 0, 0]) * popucom.KOMI_SCALE)
    own, opp = ("black", "white") if black_to_move else ("white", "black")
    return Position.setup(
        **{
            f"{own}_stones": squares("own_stones"),
            f"{opp}_stones": squares("opponent_stones"),
            f"{own}_floors": squares("own_floors"),
            f"{opp}_floors": squares("opponent_floors"),
        },
        to_move=Color.BLACK if black_to_move else Color.WHITE,
        moves_left=(own_left, opp_left) if black_to_move else (opp_left, own_left),
        komi=own_komi if black_to_move else -own_komi,
    )


class ExactEvaluator:
    """Uniform priors and the exact game value by alpha-beta (endgames only)."""

    feature_version = popucom.FEATURE_VERSION

    def __call__(self, features: np.ndarray) -> EvalOutput:
        n = len(features)
        wdl = np.zeros((n, 3), dtype=np.float32)
        for i, f in enumerate(features):
            wdl[i, 1 - _core.solve(position_from_features(f), 6)] = 1.0
        return EvalOutput(np.zeros((n, 81), np.float32), wdl, np.zeros(n, np.float32))


def endgame() -> Position:
    # Black's last move, then White's: only c5 completes b5-c5-d5 and paints row 5 to win.
    return Position.setup(
        black_stones="b5 d5", white_stones="a1 i9", black_floors="a9", white_floors="a2 b2 c2", moves_left=(1, 1)
    )


def test_features_round_trip_through_the_decoder() -> None:
    game = popucom.Game.from_record("e5 d4 c3 f6 g7", komi=3)
    for position in game.positions():
        assert position_from_features(popucom.encode_position(position)) == position


def test_exact_evaluator_finds_the_winning_move() -> None:
    result = analyze(endgame(), ExactEvaluator(), visits=3000)
    assert popucom.square_to_text(result.best_move) == "c5"
    assert result.moves[0]["winrate"] > 0.999
    assert result.winrate > 0.97


def test_uniform_evaluator_converges_on_the_endgame() -> None:
    result = analyze(endgame(), UniformEvaluator(), visits=20000)
    assert popucom.square_to_text(result.best_move) == "c5"
    assert result.winrate > 0.95
    assert result.moves[0]["lcb"] > result.moves[1]["utility"]
    assert result.moves[0]["pv"][0] == result.best_move


def run_games(seed: int, threads: int = 1, shuffle: bool = False, games: int = 8) -> list[np.ndarray]:
    evaluator = TinyEvaluator()
    if shuffle:
        base = evaluator

        def evaluator(features: np.ndarray) -> EvalOutput:  # evaluates in a permuted order, answers by slot
            order = np.random.default_rng(len(features)).permutation(len(features))
            out = base(features[order])
            inverse = np.argsort(order)
            return EvalOutput(*(a if a is None else a[inverse] for a in out))  # value_error may be None

        evaluator.feature_version = popucom.FEATURE_VERSION
    params = _core.SearchParams()
    params.root_noise = True
    driver = BatchedSearch(evaluator, num_games=games, params=params, threads=threads, seed=seed)
    driver.search.set_visit_targets(150)
    counts = []
    for _ in range(3):  # three moves per game, reusing subtrees
        driver.run()
        assert driver.search.total_in_flight() == 0
        for g in range(games):
            counts.append(driver.search.visit_counts(g))
            driver.search.play(g, driver.search.choose_move(g, 1.0))
    return counts


def test_same_seed_same_search_any_threads_any_slot_order() -> None:
    base = run_games(seed=3)
    for other in (run_games(seed=3), run_games(seed=3, threads=2), run_games(seed=3, shuffle=True)):
        assert all(np.array_equal(a, b) for a, b in zip(base, other))
    assert not all(np.array_equal(a, b) for a, b in zip(base, run_games(seed=4)))


def test_visits_add_up_and_virtual_losses_are_removed_every_step() -> None:
    driver = BatchedSearch(TinyEvaluator(), num_games=4)
    driver.search.set_visit_targets(300)
    while not driver.search.all_done():
        driver.step()
        assert driver.search.total_in_flight() == 0 and driver.search.pending == 0
    for g in range(4):
        assert driver.search.visit_counts(g).sum() + 1 == driver.search.visits(g) == 300


def test_transposition_is_evaluated_once() -> None:
    driver = BatchedSearch(UniformEvaluator(), num_games=2)
    search = driver.search
    search.reset(0, popucom.Game.from_record("e5 d4 c3").position)
    search.reset(1, popucom.Game.from_record("c3 d4 e5").position)
    search.set_visit_target(0, 1)
    driver.run()
    search.set_visit_target(1, 1)
    assert search.gather(driver.inputs) == 0  # game 1's root came from the cache
    assert search.cache_resolved == 1 and search.visits(1) == 1
    assert driver.cache.hits == 1


def test_cache_never_grows_past_its_cap() -> None:
    driver = BatchedSearch(UniformEvaluator(), num_games=64, cache_mb=0.05)
    cache, search = driver.cache, driver.search
    assert 0 < cache.capacity and cache.bytes <= 0.05 * 2**20
    rng = np.random.default_rng(0)
    while search.leaves_evaluated < 100_000:
        search.set_visit_targets(int(search.visits(0)) + 40)
        driver.run()
        assert cache.size <= cache.capacity
        for g in range(64):
            position = search.position(g)
            if position.is_over or position.ply > 20:
                search.reset(g, Position(komi=int(rng.integers(-50, 50))))
            else:
                search.play(g, search.choose_move(g, 1.0))
    assert cache.size == cache.capacity


def test_analysis_stops_on_request() -> None:
    stop = threading.Event()
    seen = []

    def callback(result) -> bool:
        seen.append(result.visits)
        return len(seen) < 3

    result = analyze(Position(), TinyEvaluator(), visits=None, seconds=30, callback=callback, report_every_s=0.0)
    assert len(seen) >= 3 and result.visits < 10_000
    stop.set()
    assert analyze(Position(), TinyEvaluator(), visits=None, stop=stop).visits <= 1
    with pytest.raises(ValueError, match="budget"):
        analyze(Position(), TinyEvaluator(), visits=None)
    finished = popucom.Game.from_record(
        "e5 a5 f4 i4 f5 d1 d4 d9 f6 g1 b6 i7 b5 a2 c6 g4 d5 a9 b7 i5 e7 h2 e6 d2 d6 "
        "h5 d8 e9 f6 i1 c1 g9 c2 e1 d3 a7 e3 h9 e8 a4 c3 d7 f8 h7 i2 e2 d8"
    )
    with pytest.raises(ValueError, match="game is over"):
        analyze(finished.position, TinyEvaluator())


def play_match(strong: str, weak: str, games: int) -> int:
    wins = 0
    for i in range(games):
        bots = {Color.BLACK: _core.Bot(strong, seed=i), Color.WHITE: _core.Bot(weak, seed=1000 + i)}
        if i % 2:
            bots = {Color.BLACK: bots[Color.WHITE], Color.WHITE: bots[Color.BLACK]}
        game = popucom.Game()
        while not game.is_over:
            game.play(bots[game.to_move].select_move(game.position))
        strong_color = Color.BLACK if i % 2 == 0 else Color.WHITE
        wins += game.result == (popucom.Result.BLACK_WIN if strong_color == Color.BLACK else popucom.Result.WHITE_WIN)
    return wins


def test_uct_beats_random() -> None:
    assert play_match("uct:200", "random", 50) >= 45


def test_greedy_beats_random() -> None:
    assert play_match("greedy", "random", 50) >= 45


def test_search_bad_input() -> None:
    driver = BatchedSearch(UniformEvaluator(), num_games=2)
    search = driver.search
    search.set_visit_targets(10)
    with pytest.raises(ValueError, match="out must have shape"):
        search.gather(np.zeros((4, 3, 9, 9), np.float32))
    with pytest.raises(ValueError, match="holds 1 positions"):
        search.gather(np.zeros((1, popucom.NUM_FEATURE_PLANES, 9, 9), np.float32))
    n = search.gather(driver.inputs)
    with pytest.raises(RuntimeError, match="not been backed up"):
        search.gather(driver.inputs)
    with pytest.raises(ValueError, match=r"policy_logits must have shape \(%d, 81\)" % n):
        search.backup(np.zeros((n + 1, 81), np.float32), np.zeros((n, 3), np.float32), np.zeros(n, np.float32))
    logits = np.zeros((n, 81), np.float32)
    logits[1, 5] = np.nan
    with pytest.raises(ValueError, match="slot 1 is not finite"):
        search.backup(logits, np.ones((n, 3), np.float32), np.zeros(n, np.float32))
    search.cancel_pending()
    assert search.total_in_flight() == 0
    with pytest.raises(IndexError):
        search.reset(5, Position())
    search.play(0, "e5")
    with pytest.raises(ValueError, match="illegal move"):
        search.play(0, "e5")
    with pytest.raises(ValueError, match="unknown bot"):
        _core.Bot("alphazero")
    with pytest.raises(ValueError, match="uct:N"):
        _core.Bot("uct:-3")
    with pytest.raises(ValueError, match="game is over"):
        _core.Bot("random").select_move(
            Position.setup(black_floors="a1", to_move=Color.WHITE, moves_left=(0, 1)).play("e5")
        )
    with pytest.raises(ValueError, match="feature version"):

        class Old(UniformEvaluator):
            feature_version = 0

        BatchedSearch(Old(), num_games=1)


def test_evaluator_errors_leave_the_search_usable() -> None:
    def broken(features: np.ndarray) -> EvalOutput:
        return EvalOutput(np.zeros((len(features), 80), np.float32), None, None)

    broken.feature_version = popucom.FEATURE_VERSION
    driver = BatchedSearch(broken, num_games=2)
    driver.search.set_visit_targets(5)
    with pytest.raises(ValueError, match="policy_logits has shape"):
        driver.step()
    assert driver.search.pending == 0 and driver.search.total_in_flight() == 0


def test_search_params_declared_once_and_stubbed() -> None:
    """The bindings, the repr and the type stubs follow the one X-macro in params.h."""
    import ast
    from pathlib import Path

    import popucom

    fields = popucom._core.SearchParams.fields
    params = popucom._core.SearchParams()
    text = repr(params)
    assert all(f"{name}=" in text for name in fields) and len(fields) >= 15
    params.c_puct = 2.5
    assert "c_puct=2.5" in repr(params)
    params.validate()
    params.virtual_loss = -1.0  # out of range: refused by validate() and by every search built on it
    with pytest.raises(ValueError, match="virtual_loss = -1 is out of range"):
        params.validate()
    with pytest.raises(ValueError, match="virtual_loss"):
        popucom._core.MultiSearch(1, params)
    params.virtual_loss, params.c_puct = 1.0, float("inf")  # finite, and within its upper bound
    with pytest.raises(ValueError, match="c_puct = inf is out of range"):
        params.validate()
    stub = ast.parse((Path(popucom.__file__).parent / "_core.pyi").read_text())
    cls = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "SearchParams")
    properties = {
        n.name
        for n in cls.body
        if isinstance(n, ast.FunctionDef) and any(getattr(d, "id", "") == "property" for d in n.decorator_list)
    }
    assert properties == set(fields)


@pytest.mark.parametrize(
    "overrides, field",
    [
        ({"virtual_loss": 1e308}, "virtual_loss"),
        ({"score_utility_weight": 1e300, "leaf_solve_plies": 4}, "score_utility_weight"),
        (
            {"c_puct": 1.7e308, "fpu_reduction": 1.7e308, "lcb_stdevs": 1.7e308, "leaves_per_game": 1},
            "c_puct",
        ),
        ({"fpu_reduction": 1.7e308}, "fpu_reduction"),
        ({"lcb_stdevs": 1.7e308}, "lcb_stdevs"),
        ({"leaf_solve_max_nodes": 2**31 - 1}, "leaf_solve_max_nodes"),
        ({"endgame_solve_max_nodes": 2**31 - 1}, "endgame_solve_max_nodes"),
        ({"endgame_solve_plies": 51}, "endgame_solve_plies"),
        ({"gumbel_actions": 82}, "gumbel_actions"),
    ],
)
def test_settings_that_crashed_or_hung_the_search_are_refused_by_name(overrides, field) -> None:
    """Values that overflowed a score into NaN (edge selection found no child and read outside
    its array) or made a solve run for minutes: every field has a finite upper bound, and every
    way in (a player spec's options, SearchParams itself) refuses them, naming the field."""
    from popucom.search.params import search_params

    with pytest.raises(ValueError, match=f"^spec: SearchParams.{field} = .* is out of range: want .* <= {field} <= "):
        search_params(overrides, "spec")
    params = _core.SearchParams()
    for name, value in overrides.items():
        setattr(params, name, value)
    with pytest.raises(ValueError, match=field):
        _core.MultiSearch(1, params)


def test_every_search_setting_has_a_finite_upper_bound_and_the_defaults_are_within() -> None:
    params = _core.SearchParams()
    params.validate()
    for name in _core.SearchParams.fields:
        huge = _core.SearchParams()
        default = getattr(huge, name)
        if isinstance(default, bool):
            continue
        setattr(huge, name, 2**31 - 1 if isinstance(default, int) else 1e300)
        with pytest.raises(ValueError, match=f"{name} = .* is out of range"):
            huge.validate()


def test_uct_rollouts_are_capped_where_every_front_end_parses_them() -> None:
    """uct:N keeps a tree node per rollout, so 100 million rollouts meant std::bad_alloc or the
    OOM killer: the engine, the arena and the pipeline's baseline all parse it through the core's
    Bot, which refuses N past its cap with the range."""
    from popucom.pipeline.config_check import bot
    from popucom.player_spec import PlayerSpec

    _core.Bot("uct:1000000")  # the cap itself: the tree grows only as it searches
    for spec in ("uct:1000001", "uct:100000000", "uct:" + "9" * 30):
        with pytest.raises(ValueError, match=r"want uct:N with N a whole number of rollouts from 1 to 1000000"):
            _core.Bot(spec)
        with pytest.raises(ValueError, match="from 1 to 1000000"):
            PlayerSpec.parse(spec)
        assert "from 1 to 1000000" in bot(spec, None)


def test_search_params_from_overrides_names_what_is_wrong() -> None:
    """One builder for every caller (player specs, self-play): overrides land on the core's
    defaults, and an unknown name, a wrong type or an out-of-range value is an error that
    starts with the caller's words."""
    from popucom.search.params import search_params

    params = search_params({"c_puct": 2.0, "leaves_per_game": 3})
    assert (params.c_puct, params.leaves_per_game) == (2.0, 3)
    assert params.virtual_loss == _core.SearchParams().virtual_loss
    with pytest.raises(ValueError, match="^my context: 'cpuct' is not a search setting"):
        search_params({"cpuct": 1.0}, "my context")
    with pytest.raises(ValueError, match="^my context: leaves_per_game='two' is not of type int"):
        search_params({"leaves_per_game": "two"}, "my context")
    with pytest.raises(ValueError, match="^my context: .*virtual_loss = -1 is out of range"):
        search_params({"virtual_loss": -1.0}, "my context")
