"""Hostile game records (popucom/gui/records.py): every bad SGF or JSONL file is a ValueError
naming the place and the problem, which the window shows in its message box, never another
exception. Needs no Qt (records.py is pure Python)."""

import json

import pytest

from popucom.gui.records import from_sgf, load_game_records, load_sgf, to_sgf

NESTED = 5000  # far deeper than Python's recursion limit (1000)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(;GM[81]KM[inf])", r"KM\[inf\].*komi must be a whole number"),
        ("(;GM[81]KM[-inf])", r"KM\[-inf\].*komi must be a whole number"),
        ("(;GM[81]KM[nan])", r"KM\[nan\].*komi must be a whole number"),
        ("(;GM[81]KM[1e30])", r"KM\[1e30\].*from -81 to 81"),
        ("(;GM[81]KM[82])", r"KM\[82\].*from -81 to 81"),
        ("(;GM[81]KM[-1000])", r"KM\[-1000\].*from -81 to 81"),
        ("(;GM[81]" + "(;" * NESTED + ")" * NESTED + ")", "variations nested deeper than"),
        ("(;GM[81]" + "(;C[x]" * NESTED, "variations nested deeper than"),
        ("(;GM[81];B[e5]" + "(;W[d4])" * 3 + ")" + "(", "unexpected text after the game"),
    ],
)
def test_hostile_sgf_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_sgf(text)


def test_komi_at_the_limits_is_read() -> None:
    for komi in (-81, 0, 81):
        assert from_sgf(f"(;GM[81]KM[{komi}])").root.position.komi == komi
    assert from_sgf("(;GM[81]KM[7.0])").root.position.komi == 7


def test_wide_variations_still_load_and_round_trip() -> None:
    # 80 sibling variations at the root, each one move: breadth is not nesting.
    from popucom import _core

    moves = [_core.square_to_text(s) for s in range(80)]
    tree = from_sgf("(;GM[81]" + "".join(f"(;B[{m}])" for m in moves) + ")")
    assert len(tree.root.children) == 80
    assert len(from_sgf(to_sgf(tree)).root.children) == 80


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"moves": "e5", "komi": Infinity}', "komi must be a whole number"),
        ('{"moves": "e5", "komi": -Infinity}', "komi must be a whole number"),
        ('{"moves": "e5", "komi": NaN}', "komi must be a whole number"),
        ('{"moves": "e5", "komi": 1e30}', "from -81 to 81"),
        ('{"moves": "e5", "komi": 100}', "from -81 to 81"),
        ('{"moves": "e5", "komi": 2.5}', "komi must be a whole number"),
        ('{"moves": "e5", "komi": true}', "komi must be a whole number"),
        ('{"moves": "e5", "komi": "7.5"}', "komi must be a whole number"),
        ('{"moves": "e5", "result": "black", "score": Infinity}', "score"),
        ('{"moves": "e5", "result": "black", "score": 1e400}', "score"),
        ('{"moves": "e5", "result": ["black"]}', "result"),
        ('{"moves": 5}', "moves"),
        ('{"moves": ["e5", 1e30]}', "move"),
        ("[" * NESTED + "]" * NESTED, "nested|not a game record"),
        ('"just text"', "not a game record"),
        ("{" * 10, "not a game record"),
    ],
)
def test_hostile_jsonl_is_a_clear_error(tmp_path, line: str, message: str) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text('{"moves": "e5 d4", "komi": 1}\n' + line + "\n")
    with pytest.raises(ValueError, match=f"games.jsonl line 2: .*({message})"):
        load_game_records(path)


def test_a_record_file_of_bytes_is_a_clear_error(tmp_path) -> None:
    for name, data in (("zeros.sgf", b"\x00" * 100), ("latin.sgf", b"(;GM[81]C[\xe9])"), ("empty.sgf", b"")):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ValueError, match=name):
            load_sgf(path)
    directory = tmp_path / "folder.jsonl"
    directory.mkdir()
    with pytest.raises(ValueError, match="folder.jsonl"):
        load_game_records(directory)


def test_komi_in_jsonl_follows_the_same_rule(tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({"moves": "e5", "komi": -81}) + "\n" + json.dumps({"moves": "e5", "komi": 3.0}) + "\n")
    assert [tree.root.position.komi for _, tree in load_game_records(path)] == [-81, 3]
