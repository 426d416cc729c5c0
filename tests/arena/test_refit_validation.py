"""`popucom arena --refit` fits ratings on every record of --games-out: each one is replayed
through the rules first, its komi checked and its recorded result, score and end compared with
the replay's, naming the file and line of a bad one (a forged record would move every rating)."""

import json

import pytest

from popucom import _core
from popucom.arena.match import read_records
from popucom.cli import main
from popucom.data.records import outcome_fields


def real_record(seed: int, komi: int = 0) -> dict:
    game = _core.Game(komi)
    bot = _core.Bot("greedy", seed=seed)
    opening = _core.Bot("random", seed=seed)
    while not game.is_over:
        game.play((opening if len(game) < 4 else bot).select_move(game.position))
    return {
        "black": "greedy",
        "white": "random",
        "moves": game.record,
        "komi": komi,
        **outcome_fields(game.position),
        "opening_plies": 4,
    }


def other_result(record: dict) -> str:
    return {"black": "white", "white": "draw", "draw": "black"}[record["result"]]


def first_move_twice(record: dict) -> str:
    moves = record["moves"].split()
    return " ".join([moves[0], moves[0], *moves[2:]])


BAD = [
    (lambda r: {**r, "moves": first_move_twice(r)}, "do not replay"),
    (lambda r: {**r, "moves": r["moves"] + " zz"}, "do not replay"),
    (lambda r: {**r, "moves": " ".join(r["moves"].split()[:-3])}, "the game is not over"),
    (lambda r: {**r, "komi": 999}, "komi must be a whole number from -81 to 81"),
    (lambda r: {**r, "komi": 2.5}, "komi must be a whole number"),
    (lambda r: {**r, "komi": "0"}, "komi must be a whole number"),
    (lambda r: {**r, "result": other_result(r)}, "result"),
    (lambda r: {**r, "score": r["score"] + 2}, "score"),
    (lambda r: {**r, "score": "7"}, "score"),
    (lambda r: {**r, "end": "resigned"}, "end"),
    (lambda r: {**r, "moves": 5}, "moves"),
    (lambda r: {**r, "opening_plies": -1}, "opening_plies"),
]


@pytest.mark.parametrize("edit, message", BAD)
def test_a_record_that_does_not_replay_to_itself_is_named(tmp_path, edit, message: str) -> None:
    good = real_record(1)
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(edit(real_record(2))) + "\n")
    with pytest.raises(ValueError, match=rf"games.jsonl:2: .*{message}") as info:
        read_records(path, replay=True)
    assert str(path) in str(info.value) and "fix or delete that line" in str(info.value)


def test_real_records_with_komi_replay(tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(real_record(seed, komi)) + "\n" for seed, komi in ((1, 0), (2, 7), (3, -5))))
    assert [r.komi for r in read_records(path, replay=True)] == [0, 7, -5]


def test_refit_refuses_a_bad_record_before_playing_and_runs_once_it_is_deleted(tmp_path, capsys) -> None:
    games, results = tmp_path / "games.jsonl", tmp_path / "results.jsonl"
    bad = {**real_record(2), "score": real_record(2)["score"] + 4}
    games.write_text(json.dumps(real_record(1)) + "\n" + json.dumps(bad) + "\n")
    command = ["arena", "greedy", "random", "--refit", "--openings", "1", "--games-out", str(games)]
    command += ["--results", str(results)]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert f"{games}:2:" in err and "score" in err and "fix or delete that line" in err
    assert not results.exists() or not results.read_text()
    games.write_text(games.read_text().splitlines(keepends=True)[0])  # the advice: delete that line
    assert main(command) == 0
    assert len(read_records(games, replay=True)) == 3


def test_a_torn_last_record_is_skipped_and_the_next_pair_starts_its_own_line(tmp_path, capsys, caplog) -> None:
    import logging

    games, results = tmp_path / "games.jsonl", tmp_path / "results.jsonl"
    games.write_text(json.dumps(real_record(1)) + "\n" + json.dumps(real_record(2))[:30])  # a killed append
    results.write_text('{"time": 1')
    command = ["arena", "greedy", "random", "--refit", "--openings", "1", "--games-out", str(games)]
    command += ["--results", str(results)]
    with caplog.at_level(logging.WARNING, logger="popucom"):
        assert main(command) == 0
    assert any("games.jsonl:2" in m and "torn" in m for m in caplog.messages)
    assert len(read_records(games, replay=True)) == 3
    assert [json.loads(line)["games"] for line in results.read_text().splitlines()] == [2]  # the torn line made way
