"""Golden positions for every rule in docs/rules.md, through the Python API."""

import pytest

import popucom
from popucom import Color, EndReason, Position, Result


def squares(text: str) -> set[int]:
    return set(popucom.parse_record(text))


def mask_squares(mask: int) -> set[int]:
    return {sq for sq in range(popucom.NUM_SQUARES) if mask >> sq & 1}


ROW_5 = squares("a5 b5 c5 d5 e5 f5 g5 h5 i5")
COLUMN_E = squares("e1 e2 e3 e4 e5 e6 e7 e8 e9")
MAIN_DIAGONAL = squares("a1 b2 c3 d4 e5 f6 g7 h8 i9")
ANTI_DIAGONAL = squares("i1 h2 g3 f4 e5 d6 c7 b8 a9")

# (name, black stones, white stones, white floors, Black's move,
#  black stones after, white stones after, black floors after, white floors after)
CASES = [
    ("horizontal, paint stopped by an opponent stone", "d5 f5", "b5", "", "e5", "", "b5", "c5 d5 e5 f5 g5 h5 i5", ""),
    ("vertical", "e3 e4", "", "", "e5", "", "", " ".join(popucom.square_to_text(s) for s in sorted(COLUMN_E)), ""),
    ("main diagonal", "d4 f6", "", "", "e5", "", "", "a1 b2 c3 d4 e5 f6 g7 h8 i9", ""),
    ("anti-diagonal", "f4 d6", "", "", "e5", "", "", "i1 h2 g3 f4 e5 d6 c7 b8 a9", ""),
    (
        "two directions at once",
        "e3 e4 d5 f5",
        "",
        "",
        "e5",
        "",
        "",
        " ".join(popucom.square_to_text(s) for s in sorted(ROW_5 | COLUMN_E)),
        "",
    ),
    (
        "three directions at once",
        "e3 e4 d5 f5 c3 d4",
        "a1",
        "",
        "e5",
        "",
        "a1",
        " ".join(popucom.square_to_text(s) for s in sorted((ROW_5 | COLUMN_E | MAIN_DIAGONAL) - {0})),
        "",
    ),
    ("run of four", "a1 b1 d1", "", "", "c1", "", "", "a1 b1 c1 d1 e1 f1 g1 h1 i1", ""),
    ("run of five, paint stopped at h7", "c7 d7 f7 g7 a7", "h7", "", "e7", "a7", "h7", "a7 b7 c7 d7 e7 f7 g7", ""),
    (
        "own stones do not stop the paint and get painted",
        "c5 d5 g5",
        "",
        "",
        "e5",
        "g5",
        "",
        "a5 b5 c5 d5 e5 f5 g5 h5 i5",
        "",
    ),
    ("repaints opponent floors", "d5 f5", "a1", "a5 h5 i5 e9", "e5", "", "a1", "a5 b5 c5 d5 e5 f5 g5 h5 i5", "e9"),
    ("no match with two in a row", "d5", "f5", "", "e5", "d5 e5", "f5", "", ""),
    ("opponent stones and their floors untouched", "d5 f5", "c5 g5", "c5 g5", "e5", "", "c5 g5", "d5 e5 f5", "c5 g5"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden_move(case: tuple) -> None:
    _, black, white, white_floors, move, black_after, white_after, black_floors_after, white_floors_after = case
    position = Position.setup(black_stones=black, white_stones=white, white_floors=white_floors)
    after = position.play(move)
    assert mask_squares(after.stones(Color.BLACK)) == squares(black_after)
    assert mask_squares(after.stones(Color.WHITE)) == squares(white_after)
    assert mask_squares(after.floors(Color.BLACK)) == squares(black_floors_after)
    assert mask_squares(after.floors(Color.WHITE)) == squares(white_floors_after)
    assert after.to_move == Color.WHITE
    assert after.moves_left[0] == position.moves_left[0] - 1
    assert position.stones(Color.BLACK) == sum(1 << s for s in squares(black))  # play() leaves the original alone


def test_floors_under_removed_stones_are_painted() -> None:
    # The removed stones c3 and d4 lie on the diagonal behind the white stone's line: all are painted.
    after = Position.setup(black_stones="c3 d4", white_stones="f6").play("e5")
    assert mask_squares(after.floors(Color.BLACK)) == squares("a1 b2 c3 d4 e5")
    assert after.stones(Color.BLACK) == 0


def test_white_matches_and_paints_white() -> None:
    position = Position.setup(black_stones="a1", white_stones="d5 f5", to_move=Color.WHITE)
    after = position.play("e5")
    assert mask_squares(after.floors(Color.WHITE)) == ROW_5
    assert after.to_move == Color.BLACK


def test_move_onto_opponent_floor_is_refused() -> None:
    position = Position.setup(white_stones="a1", white_floors="e5")
    assert not position.is_legal("e5")
    assert "painted in the opponent's colour" in position.illegal_reason("e5")
    with pytest.raises(ValueError, match="e5 is painted in the opponent's colour"):
        position.play("e5")
    with pytest.raises(ValueError, match="a1 already holds a stone"):
        position.play("a1")
    assert Position.setup(white_stones="a1", black_floors="e5").is_legal("e5")  # own floor is fine


NO_LEGAL_MOVE_GAME = (
    "40 36 32 35 41 3 30 75 50 6 46 62 37 9 47 33 39 72 55 44 58 16 49 12 48 43 66 76 50 8 2 78 "
    "11 4 21 54 22 79 67 27 20 57 68 61 17 13 66"
)


@pytest.mark.parametrize("komi", [0, -100, 100])
def test_no_legal_move_loss_ignores_komi(komi: int) -> None:
    game = popucom.Game(komi)
    for move in NO_LEGAL_MOVE_GAME.split():
        game.play(int(move))
    assert len(game) == 47
    assert game.to_move == Color.WHITE
    assert game.is_over and game.legal_moves() == []
    assert game.end_reason == EndReason.NO_LEGAL_MOVE
    assert game.result == Result.BLACK_WIN
    assert game.score == 57
    assert bin(game.position.floors(Color.BLACK)).count("1") == 57
    assert game.position.floors(Color.WHITE) == 0
    # the training/search margin keeps the result's sign whatever the komi
    assert game.position.final_margin == max(abs(57 + komi), 1)
    with pytest.raises(ValueError, match="game is over"):
        game.play(80)


@pytest.mark.parametrize("komi, result", [(0, Result.DRAW), (1, Result.BLACK_WIN), (-1, Result.WHITE_WIN)])
def test_moves_exhausted_draw_and_komi(komi: int, result: Result) -> None:
    last = Position.setup(black_floors="a1", white_floors="i9", to_move=Color.WHITE, moves_left=(0, 1), komi=komi)
    final = last.play("e5")
    assert final.is_over and final.end_reason == EndReason.MOVES_EXHAUSTED
    assert final.score == 0
    assert final.result == result
    assert final.legal_moves() == []


def test_komi_decides_a_full_game() -> None:
    game = popucom.Game.from_record(
        "e5 c8 e8 e2 c4 e9 c7 i9 f9 f8 g7 f4 a1 c2 i2 h5 g2 i8 b1 b8 c9 i6 d5 b7 i3 b3 i4 g3 d4 a5 "
        "d9 f5 h8 h6 f7 g1 a9 b5 i1 d8 a7 e4 a4 h7 a3 e8 i5 d1 f6 c6"
    )
    assert game.end_reason == EndReason.MOVES_EXHAUSTED
    score = game.score
    for komi, expected in [(-score + 1, Result.BLACK_WIN), (-score, Result.DRAW), (-score - 1, Result.WHITE_WIN)]:
        assert popucom.Game.from_record(game.record, komi=komi).result == expected
