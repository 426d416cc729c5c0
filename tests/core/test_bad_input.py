"""Bad input gets a clear ValueError/TypeError naming the problem, never a crash."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import popucom
from popucom import Game, Position


@pytest.mark.parametrize(
    "move, error, message",
    [
        (81, ValueError, "off the board"),
        (-1, ValueError, "off the board"),
        (10**30, ValueError, "off the board"),
        ("j5", ValueError, "column must be a letter a-i"),
        ("e0", ValueError, "row must be a digit 1-9"),
        ("e10", ValueError, "cannot read move 'e10'"),
        ("", ValueError, "cannot read move"),
        (4.0, TypeError, "square index"),
        (None, TypeError, "square index"),
        (True, TypeError, "square index"),
        ([40], TypeError, "square index"),
    ],
)
def test_bad_moves(move: object, error: type, message: str) -> None:
    game = Game()
    with pytest.raises(error, match=message):
        game.play(move)
    assert len(game) == 0


def test_illegal_moves_leave_the_game_unchanged() -> None:
    game = Game.from_record("e5")
    before = game.position
    with pytest.raises(ValueError, match="e5 already holds a stone"):
        game.play("e5")
    assert game.position == before and game.record == "e5"


@pytest.mark.parametrize(
    "record, message",
    [
        ("e5 zz", "record move 2"),
        ("e5 e5", r"record move 2 \(e5\): illegal move: e5 already holds a stone"),
        ("e5, d4", "record move 1"),
    ],
)
def test_malformed_records(record: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game.from_record(record)


def test_unpack_rejects_corrupt_data() -> None:
    packed = Position().pack()
    bad = packed.copy()
    bad[0] = bad[2] = 1
    with pytest.raises(ValueError, match="both a black and a white stone"):
        Position.unpack(bad)
    bad = packed.copy()
    bad[1] = 1 << 40
    with pytest.raises(ValueError, match="beyond square 80"):
        Position.unpack(bad)
    bad = packed.copy()
    bad[8] = 7
    with pytest.raises(ValueError, match="side to move"):
        Position.unpack(bad)
    with pytest.raises(ValueError, match="shape"):
        Position.unpack(np.zeros(8, dtype=np.uint64))
    with pytest.raises(TypeError, match="dtype"):
        Position.unpack(np.zeros(9, dtype=np.int64))


def test_setup_rejects_inconsistent_positions() -> None:
    with pytest.raises(ValueError, match="both a black and a white stone"):
        Position.setup(black_stones="a1", white_stones="a1")
    with pytest.raises(ValueError, match="black stone stands on a white floor"):
        Position.setup(black_stones="a1", white_floors="a1")
    with pytest.raises(ValueError, match="listed twice"):
        Position.setup(black_stones="a1 a1")
    with pytest.raises(ValueError, match="do not fit"):
        Position.setup(moves_left=(25, 24))
    with pytest.raises(ValueError, match="black_stones"):
        Position.setup(black_stones="a1 zz")


def test_encode_batch_checks_buffers() -> None:
    packed = np.stack([Position().pack(), Position(2).pack()])
    planes = popucom.NUM_FEATURE_PLANES
    with pytest.raises(TypeError, match="out must have dtype float32"):
        popucom.encode_batch(packed, np.zeros((2, planes, 9, 9), dtype=np.float64))
    with pytest.raises(ValueError, match=r"out must have shape \(2, %d, 9, 9\)" % planes):
        popucom.encode_batch(packed, np.zeros((3, planes, 9, 9), dtype=np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        popucom.encode_batch(packed, np.zeros((2, planes, 9, 18), dtype=np.float32)[..., ::2])
    readonly = np.zeros((2, planes, 9, 9), dtype=np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        popucom.encode_batch(packed, readonly)
    with pytest.raises(TypeError, match="packed must have dtype uint64"):
        popucom.encode_batch(packed.astype(np.int64), np.zeros((2, planes, 9, 9), dtype=np.float32))
    with pytest.raises(ValueError, match="symmetry 8 at index 1"):
        popucom.encode_batch(packed, np.zeros((2, planes, 9, 9), dtype=np.float32), np.array([0, 8], dtype=np.uint8))
    corrupt = packed.copy()
    corrupt[1, 8] = 0xFF
    with pytest.raises(ValueError, match="packed position 1 is corrupt"):
        popucom.encode_batch(corrupt, np.zeros((2, planes, 9, 9), dtype=np.float32))
    with pytest.raises(TypeError):
        popucom.encode_batch([[0] * 9], np.zeros((1, planes, 9, 9), dtype=np.float32))


anything = st.one_of(
    st.integers(),
    st.text(max_size=6),
    st.floats(),
    st.none(),
    st.booleans(),
    st.binary(max_size=4),
    st.lists(st.integers(0, 80), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(moves=st.lists(anything, max_size=60))
def test_arbitrary_moves_never_crash(moves: list) -> None:
    game = Game()
    for move in moves:
        try:
            game.play(move)
        except (ValueError, TypeError):
            pass
    assert game.position.hash == game.position.compute_hash()


@settings(max_examples=300, deadline=None)
@given(record=st.text(max_size=40), komi=st.integers(-(2**31), 2**31 - 1))
def test_arbitrary_records_never_crash(record: str, komi: int) -> None:
    try:
        game = Game.from_record(record, komi=komi)
    except ValueError:
        return
    assert Game.from_record(game.record, komi=komi).position == game.position


@settings(max_examples=500, deadline=None)
@given(words=st.lists(st.integers(0, 2**64 - 1), min_size=9, max_size=9))
def test_arbitrary_packed_positions_never_crash(words: list[int]) -> None:
    packed = np.array(words, dtype=np.uint64)
    try:
        position = Position.unpack(packed)
    except ValueError:
        return
    # A position that unpacks is playable to the end.
    while not position.is_over:
        position = position.play(position.legal_moves()[0])
    assert position.result != popucom.Result.ONGOING


@settings(max_examples=200, deadline=None)
@given(
    black=st.lists(st.integers(-3, 84), max_size=8),
    white=st.lists(st.integers(-3, 84), max_size=8),
    floors=st.lists(st.integers(0, 80), max_size=20),
    to_move=st.sampled_from(list(popucom.Color)),
)
def test_arbitrary_setups_never_crash(black: list, white: list, floors: list, to_move: popucom.Color) -> None:
    try:
        position = Position.setup(black_stones=black, white_stones=white, black_floors=floors, to_move=to_move)
    except ValueError:
        return
    for move in position.legal_moves()[:3]:
        assert position.play(move).hash == position.play(move).compute_hash()


def test_numpy_integers_are_moves_but_bools_and_floats_are_not() -> None:
    game = popucom.Game()
    game.play(np.int64(40))  # an argmax over a policy array is a numpy integer
    game.play(np.uint8(41))
    assert game.moves == [40, 41]
    for bad in (np.float64(42.0), np.bool_(True), True, 42.0):
        with pytest.raises(TypeError, match="square index"):
            game.play(bad)
    with pytest.raises(ValueError, match="off the board"):
        game.play(np.int64(81))
