"""popucom.experiments.strength's head-to-head figure: the score and Elo difference of a model
over the previous version, with a 95% interval bootstrapped over openings."""

from popucom.arena.match import GameRecord
from popucom.experiments import strength


def pair(opening: str, first: str, second: str) -> list[GameRecord]:
    """One opening played twice, 'new' Black in the first game and White in the second; the
    results are the records' ("black", "white" or "draw")."""
    return [
        GameRecord("new", "old", f"{opening} e5", 0, first, 0, "moves_exhausted", 2),
        GameRecord("old", "new", f"{opening} e5", 0, second, 0, "moves_exhausted", 2),
    ]


def test_even_results_give_an_interval_around_zero() -> None:
    records = [g for i in range(40) for g in pair(f"a{i % 9 + 1} b{i // 9 + 1}", "black", "black")]  # Black wins
    h = strength.head_to_head(records, "new", "old")
    assert h["games"] == 80 and h["score"] == 0.5 and h["elo_difference"] == 0
    low, high = h["elo_difference_95"]
    assert low == high == 0  # every opening split 1-1: no resample can differ


def test_a_clearly_better_model_has_an_interval_above_zero() -> None:
    records = []
    for i in range(60):
        opening = f"a{i % 9 + 1} c{i // 9 + 1}"
        records += pair(opening, "black", "white" if i % 3 else "black")  # 2 of 3 openings won twice
    h = strength.head_to_head(records, "new", "old")
    assert h["score"] > 0.8 and h["elo_difference_95"][0] > 0
    assert h["score_95"][0] < h["score"] < h["score_95"][1]
    assert strength.head_to_head(records, "new", "someone-else") is None
