"""GameSearch (one game's tree kept across both players' moves) and the inference factory."""

import dataclasses
import threading
import time

import numpy as np
import pytest

from popucom import Position, _core
from popucom.infer import TinyEvaluator, load_evaluator
from popucom.search import GameSearch, analyze


def test_tree_is_kept_across_moves_and_reset_on_a_jump() -> None:
    gs = GameSearch(TinyEvaluator())
    first = gs.search(visits=400)
    assert first.visits >= 400
    # The snapshot says which move the search would play (LCB, exact endgame), as choose_move does.
    assert first.chosen == gs.choose_move() and first.chosen in [m["move"] for m in first.moves]
    assert gs.move_to_play(first) == first.chosen
    assert gs.move_to_play(dataclasses.replace(first, chosen=None)) == gs.choose_move()  # no snapshot choice
    best = first.moves[0]
    gs.play(best["move"])
    assert gs.visits == best["visits"] > 0  # the chosen move's subtree survived
    # The opponent's reply, given as a position one move below the root, is advanced into.
    reply = gs.result().moves[0]
    gs.set_position(gs.position.play(reply["move"]))
    assert gs.visits == reply["visits"] and gs.resets == 0
    # Searching on counts the kept visits toward the budget.
    assert gs.search(visits=reply["visits"] + 50).visits >= reply["visits"] + 50
    # A jump to an unrelated position throws the tree away.
    gs.set_position(Position().play("a1"))
    assert gs.visits == 0 and gs.resets == 1
    assert gs.position == Position().play("a1")


def test_background_search_streams_snapshots_and_stops() -> None:
    gs = GameSearch(TinyEvaluator())
    snapshots, done = [], threading.Event()
    started = time.perf_counter()
    gs.start(callback=snapshots.append, on_done=lambda r: done.set())  # no budget: until stopped
    while not snapshots and time.perf_counter() - started < 10.0:
        time.sleep(0.001)
    first_update = time.perf_counter() - started
    time.sleep(0.15)
    assert gs.running
    gs.stop()
    assert not gs.running and done.is_set()
    assert first_update < 3.0  # early, not at the end (there is none); loose for a busy machine
    visits = [s.visits for s in snapshots]
    assert visits == sorted(visits) and visits[-1] > visits[0]
    # A stopped search can be resumed on the same tree.
    assert gs.search(visits=visits[-1] + 10).visits >= visits[-1] + 10


def test_an_endless_analysis_stops_at_its_tree_memory() -> None:
    """An analysis without a budget (the GUI's, the engine's popucom-analyze) ends once its tree
    holds tree_mb: the memory of a long analysis stays put."""
    gs = GameSearch(TinyEvaluator(), tree_mb=0.25)  # 256 nodes
    done = threading.Event()
    gs.start(on_done=lambda result: done.set())
    assert done.wait(60), "the analysis did not stop at its tree's memory"
    nodes = gs.driver.search.num_nodes(0)
    assert gs.max_tree_nodes == 256 and 256 <= nodes <= 256 + 16  # one step past, at most
    assert gs.search(visits=10**6).visits == gs.visits  # a search on a full tree ends at once
    gs.set_position(Position().play("a1"))  # a fresh tree: room again
    assert gs.search(visits=100).visits >= 100
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="tree_mb must be a positive number"):
            GameSearch(TinyEvaluator(), tree_mb=bad)


def test_time_budget_and_finished_game() -> None:
    gs = GameSearch(TinyEvaluator())
    started = time.perf_counter()
    result = gs.search(seconds=0.1)
    assert 0.1 <= time.perf_counter() - started < 5.0 and result.visits > 0  # the budget ends it
    game = _core.Game.from_record("e5")
    while not game.is_over:
        game.play(game.legal_moves()[0])
    gs.set_position(game.position)
    with pytest.raises(ValueError, match="game is over"):
        gs.start(visits=10)


def test_a_tiny_time_budget_still_takes_one_batch_of_visits() -> None:
    """A move is never chosen from an empty tree (a random move), however small --seconds is."""
    gs = GameSearch(TinyEvaluator())
    result = gs.search(seconds=1e-9)
    assert result.visits >= 1 and result.chosen in [m["move"] for m in result.moves if m["visits"] > 0]
    assert gs.move_to_play(result) == result.chosen
    answer = analyze(Position(), TinyEvaluator(), visits=None, seconds=1e-9)
    assert answer.visits >= 1 and answer.chosen is not None


def test_factory_refuses_files_that_are_not_models(tmp_path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ValueError, match="not a model file"):
        load_evaluator(text)
    fake_onnx = tmp_path / "fake.onnx"
    fake_onnx.write_bytes(b"\x00garbage" * 10)
    with pytest.raises(ValueError, match="fake.onnx"):
        load_evaluator(fake_onnx)
    fake_ckpt = tmp_path / "fake.pt"
    fake_ckpt.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ValueError, match="fake.pt"):
        load_evaluator(fake_ckpt)
    with pytest.raises(FileNotFoundError):
        load_evaluator(tmp_path / "missing.onnx")
    with pytest.raises(ValueError, match="unknown backend"):
        load_evaluator(fake_onnx, backend="tpu")


def test_factory_loads_onnx_and_checkpoint(tmp_path) -> None:
    pytest.importorskip("torch")
    from popucom.data.positions import random_features
    from popucom.nn.config import preset
    from popucom.nn.export import export_onnx
    from popucom.train import Trainer

    trainer = Trainer(preset("tiny"))
    ckpt = trainer.save(tmp_path / "tiny.pt")
    onnx_path = export_onnx(trainer.model.eval(), tmp_path / "tiny.onnx")
    features = random_features(4, seed=0)
    from_onnx = load_evaluator(onnx_path)(features)
    from_checkpoint = load_evaluator(ckpt)(features)
    assert np.abs(from_onnx.policy_logits - from_checkpoint.policy_logits).max() < 1e-3
    assert np.abs(from_onnx.score - from_checkpoint.score).max() < 1e-3
    with pytest.raises(ValueError, match="export"):
        load_evaluator(ckpt, backend="onnx")
    with pytest.raises(ValueError, match="GPU"):
        load_evaluator(onnx_path, backend="trt", device="cpu")


def _random_position(plies_left: int, seed: int) -> Position:
    """A random game's unfinished position `plies_left` plies from the end."""
    rng = np.random.default_rng(seed)
    while True:
        position = Position()
        while sum(position.moves_left) > plies_left and not position.is_over:
            position = position.play(int(rng.choice(position.legal_moves())))
        if not position.is_over:
            return position


def test_the_solver_table_lives_with_the_game_and_a_jump_empties_it() -> None:
    """The endgame choice's table is kept while the session follows the game (either side's
    moves) and emptied by a jump; every move chosen near the end keeps the exact value."""
    params = _core.SearchParams()
    params.endgame_solve_plies, params.endgame_try_plies = 8, 0
    gs = GameSearch(TinyEvaluator(), params, endgame_table_mb=4.0)
    start = _random_position(10, seed=3)
    gs.set_position(start)  # a new game
    table = gs.driver.search.endgame_table_bytes
    resets = gs.resets
    while not gs.position.is_over:
        before = gs.position
        move = gs.move_to_play(gs.search(visits=8))
        if sum(before.moves_left) <= 8:
            value, move_values, _ = _core.solve_moves(before, 8)
            assert move_values[move] == value
            assert 0 < table(0) <= 4 * 2**20
        gs.follow(before, move)
    assert gs.resets == resets and table(0) > 0  # the whole game on one table
    gs.set_position(start)  # a jump back: a fresh tree, an empty table
    assert gs.resets == resets + 1 and table(0) == 0
    assert GameSearch(TinyEvaluator(), endgame_table_mb=0).driver.search.endgame_table_bytes(0) == 0
    for bad in (-1.0, float("nan"), 1e9):
        with pytest.raises(ValueError, match="megabytes must be a number"):
            GameSearch(TinyEvaluator(), endgame_table_mb=bad)
