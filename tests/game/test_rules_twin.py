"""The C++ core against the pure-Python twin on thousands of random games."""

import random

import pytest
from reference_rules import BLACK, WHITE, ReferencePosition

import popucom
from popucom import Color, Result

RESULT_NAMES = {
    Result.BLACK_WIN: "black",
    Result.WHITE_WIN: "white",
    Result.DRAW: "draw",
    Result.ONGOING: "ongoing",
}


def assert_same(game: popucom.Game, twin: ReferencePosition, context: str) -> None:
    position = game.position
    for color, twin_color in ((Color.BLACK, BLACK), (Color.WHITE, WHITE)):
        assert position.stones(color) == twin.mask(twin.stones, twin_color), context
        assert position.floors(color) == twin.mask(twin.floors, twin_color), context
    assert int(position.to_move) == twin.to_move, context
    assert position.moves_left == tuple(twin.moves_left), context
    assert game.legal_moves() == twin.legal_moves(), context
    assert position.hash == position.compute_hash(), context
    assert position.is_over == twin.is_over(), context
    assert RESULT_NAMES[position.result] == twin.result(), context
    assert position.score == twin.score(), context


def play_random_games(count: int, seed: int) -> int:
    rng = random.Random(seed)
    plies = 0
    for game_index in range(count):
        komi = rng.randint(-6, 6)
        game, twin = popucom.Game(komi), ReferencePosition(komi)
        while not twin.is_over():
            move = rng.choice(twin.legal_moves())
            game.play(move)
            twin.play(move)
            plies += 1
            assert_same(game, twin, f"game {game_index}, record {game.record}")
        assert game.is_over
    return plies


def test_three_thousand_random_games_match_the_twin() -> None:
    plies = play_random_games(3_000, seed=2026)  # the slow test below plays 100,000
    assert plies > 3_000 * 40  # the games really were played out


def test_twin_reaches_the_no_legal_move_game() -> None:
    record = [
        int(x)
        for x in (
            "40 36 32 35 41 3 30 75 50 6 46 62 37 9 47 33 39 72 55 44 58 16 49 12 48 43 66 76 50 8 2 78 "
            "11 4 21 54 22 79 67 27 20 57 68 61 17 13 66"
        ).split()
    ]
    game, twin = popucom.Game(), ReferencePosition()
    for move in record:
        game.play(move)
        twin.play(move)
        assert_same(game, twin, game.record)
    assert twin.result() == "black"
    assert twin.floors.count(BLACK) == 57 and twin.floors.count(WHITE) == 0


@pytest.mark.slow
def test_hundred_thousand_random_games_match_the_twin() -> None:
    play_random_games(100_000, seed=7)
