"""The Python API: Game/Position behaviour, records, symmetries and the encoder."""

import copy
import pickle
import random

import numpy as np
import pytest

import popucom
from popucom import Color, Game, Position, Result


def random_game(seed: int, plies: int | None = None) -> Game:
    rng = random.Random(seed)
    game = Game()
    while not game.is_over and (plies is None or len(game) < plies):
        game.play(rng.choice(game.legal_moves()))
    return game


def test_constants_come_from_the_core() -> None:
    assert popucom.BOARD_SIZE == 9 and popucom.NUM_SQUARES == 81
    assert popucom.MOVES_PER_PLAYER == 25
    assert popucom.NUM_FEATURE_PLANES == len(popucom.FEATURE_PLANES)
    names = [name for name, _ in popucom.FEATURE_PLANES]
    assert names[:5] == ["own_stones", "opponent_stones", "own_floors", "opponent_floors", "unpainted_floors"]
    assert {"own_moves_left", "opponent_moves_left", "own_floor_count", "komi", "black_to_move"} <= set(names)


def test_game_basics() -> None:
    game = Game()
    assert game.to_move == Color.BLACK and game.moves_left == (25, 25) and game.result == Result.ONGOING
    assert len(game.legal_moves()) == 81
    game.play("e5")
    game.play(30)  # d4
    game.play("C3")
    assert game.record == "e5 d4 c3"
    assert game.moves == [40, 30, 20]
    assert game.moves_left == (23, 24) and game.ply == 3
    assert game.position.stone_at("e5") == Color.BLACK
    assert game.position.stone_at("d4") == Color.WHITE
    assert game.position.stone_at("a1") is None
    assert Game.from_record("e5 d4 c3").position == game.position
    text = str(game)
    assert "White to move" in text and "X" in text and "O" in text


def test_undo_restores_positions_and_hashes() -> None:
    game = random_game(3)
    positions = game.positions()
    assert len(positions) == len(game) + 1
    while len(game):
        game.undo()
        assert game.position == positions[len(game)]
        assert game.position.hash == positions[len(game)].hash
    with pytest.raises(ValueError, match="nothing to undo"):
        game.undo()


def test_copy_is_independent() -> None:
    game = random_game(5, plies=10)
    other = game.copy()
    other.play(other.legal_moves()[0])
    assert len(other) == len(game) + 1
    assert copy.deepcopy(game).record == game.record


def test_position_pack_unpack_and_pickle() -> None:
    for seed in range(20):
        position = random_game(seed, plies=seed * 2).position
        packed = position.pack()
        assert packed.dtype == np.uint64 and packed.shape == (popucom.PACKED_WORDS,)
        assert Position.unpack(packed) == position
        assert pickle.loads(pickle.dumps(position)) == position
    history = random_game(11).packed_history()
    assert history.shape[1] == popucom.PACKED_WORDS


@pytest.mark.parametrize("symmetry", range(8))
def test_symmetry_of_moves_gives_transformed_positions(symmetry: int) -> None:
    for seed in range(25):
        game = random_game(seed)
        mirrored = Game()
        for move in game.moves:
            mirrored.play(popucom.transform_square(symmetry, move))
        assert mirrored.position == game.position.transformed(symmetry)
        assert mirrored.result == game.result
        back = mirrored.position.transformed(popucom.inverse_symmetry(symmetry))
        assert back == game.position


def test_symmetry_tables() -> None:
    e5 = popucom.parse_square("e5")
    assert all(popucom.transform_square(s, e5) == e5 for s in range(8))
    assert popucom.transform_square(1, "a1") == popucom.parse_square("i1")  # 90 degrees clockwise
    assert popucom.transform_square(4, "a1") == popucom.parse_square("i1")  # left-right mirror
    assert popucom.transform_square(6, "b1") == popucom.parse_square("a2")  # transpose
    for s in range(8):
        images = {popucom.transform_square(s, sq) for sq in range(81)}
        assert images == set(range(81))


def test_encode_batch_matches_single_encoding_and_symmetry() -> None:
    positions = [random_game(seed, plies=seed).position for seed in range(16)]
    packed = np.stack([p.pack() for p in positions])
    out = np.full((16, popucom.NUM_FEATURE_PLANES, 9, 9), np.nan, dtype=np.float32)
    popucom.encode_batch(packed, out)
    assert not np.isnan(out).any()
    for i, position in enumerate(positions):
        np.testing.assert_array_equal(out[i], popucom.encode_position(position))
    syms = np.arange(16, dtype=np.uint8) % 8
    popucom.encode_batch(packed, out, syms)
    for i, position in enumerate(positions):
        np.testing.assert_array_equal(out[i], popucom.encode_position(position.transformed(int(syms[i]))))


def test_encoder_is_from_side_to_move() -> None:
    position = Position.setup(black_stones="a1", white_stones="b1", white_floors="c1", to_move=Color.WHITE, komi=4)
    planes = dict(zip([n for n, _ in popucom.FEATURE_PLANES], popucom.encode_position(position)))
    a1, b1, c1 = (popucom.parse_square(s) for s in ("a1", "b1", "c1"))
    assert planes["own_stones"].flat[b1] == 1 and planes["opponent_stones"].flat[a1] == 1
    assert planes["own_floors"].flat[c1] == 1
    assert planes["legal_moves"].flat[c1] == 1 and planes["legal_moves"].flat[a1] == 0
    assert planes["komi"].flat[0] == pytest.approx(-4 / popucom.KOMI_SCALE)
    assert planes["black_to_move"].max() == 0
    assert planes["own_moves_left"].flat[0] == pytest.approx(position.moves_left[1] / 25)


def test_random_playouts_counts() -> None:
    stats = popucom.random_playouts(1000, seed=1)
    assert stats["games"] == 1000
    assert stats["black_wins"] + stats["white_wins"] + stats["draws"] == 1000
    assert 40 * 1000 <= stats["plies"] <= 50 * 1000
    assert popucom.random_playouts(1000, seed=1) == stats  # seeded


def test_positions_taken_from_a_game_stay_valid_as_it_grows() -> None:
    game = Game()
    taken = []
    for move in random_game(8).moves:
        taken.append(game.position)
        game.play(move)
    assert [p.ply for p in taken] == list(range(len(taken)))
    assert all(p.to_move in (Color.BLACK, Color.WHITE) for p in taken)
    assert taken[0] == Position() and game.start == Position()


def test_final_margin_keeps_the_result_sign() -> None:
    """One rule for training targets and search (C++ Position::final_margin)."""
    game = popucom.Game.from_record("e5 d4 c3", komi=3)
    assert game.position.final_margin == game.position.score + 3  # not a no-legal-move end


def test_feature_plane_names_match_the_encoded_planes() -> None:
    """FEATURE_PLANE_NAMES comes from the one plane table in csrc/eval/features.h: plane i
    of the encoding is the plane named FEATURE_PLANE_NAMES[i]."""
    names = popucom._core.FEATURE_PLANE_NAMES
    assert list(names) == [name for name, _ in popucom.FEATURE_PLANES]
    assert len(names) == popucom.NUM_FEATURE_PLANES and popucom.FEATURE_VERSION == 1
    position = Position.setup(black_stones="a1 c3", white_stones="b1", black_floors="a1 i9", white_floors="h9", komi=-5)
    planes = popucom.encode_position(position)
    plane = {name: planes[i] for i, name in enumerate(names)}

    def squares(name: str) -> set[int]:
        return {int(sq) for sq in np.flatnonzero(plane[name] == 1)}

    sq = {s: popucom.parse_square(s) for s in ("a1", "b1", "c3", "h9", "i9")}
    assert squares("own_stones") == {sq["a1"], sq["c3"]} and squares("opponent_stones") == {sq["b1"]}
    assert squares("own_floors") == {sq["a1"], sq["i9"]} and squares("opponent_floors") == {sq["h9"]}
    assert squares("unpainted_floors") == set(range(81)) - {sq["a1"], sq["i9"], sq["h9"]}
    assert squares("legal_moves") == set(position.legal_moves())
    assert np.all(plane["own_moves_left"] == np.float32(position.moves_left[0] / 25))
    assert np.all(plane["own_floor_count"] == np.float32(2 / 81))
    assert np.all(plane["opponent_floor_count"] == np.float32(1 / 81))
    assert np.all(plane["komi"] == np.float32(-5 / popucom.KOMI_SCALE))
    assert np.all(plane["black_to_move"] == 1)
