"""Hostile game records (popucom/gui/records.py): every bad SGF or JSONL file is a ValueError
naming the place and the problem, which the window shows in its message box, never another
exception. Needs no Qt (records.py is pure Python)."""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_strategies import (
    JSON_VALUES,
    KOMI_TEXTS,
    NESTED_JSON,
    NESTING,
    RECORDS,
    sgf_game,
    sgf_text,
    sgf_trees,
)

from popucom.gui.records import MAX_RECORDS_BYTES, MAX_SGF_BYTES, from_sgf, load_game_records, load_sgf, to_sgf

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


def test_record_files_beyond_their_cap_are_refused_before_parsing(tmp_path) -> None:
    game = "(;GM[81]KM[0];B[e5];W[d4])"
    comment = "(;GM[81]C[" + "x" * (MAX_SGF_BYTES - 20) + "];B[e5])"  # one node, a long comment
    assert len(comment) <= MAX_SGF_BYTES
    (tmp_path / "long_comment.sgf").write_text(comment)
    assert load_sgf(tmp_path / "long_comment.sgf").root.children  # within the cap: opens
    (tmp_path / "big.sgf").write_text(game[:-1] + "C[" + "x" * MAX_SGF_BYTES + "])")
    with pytest.raises(ValueError, match=f"big.sgf is larger than {MAX_SGF_BYTES} bytes"):
        load_sgf(tmp_path / "big.sgf")
    line = json.dumps({"moves": "e5 d4", "komi": 0}) + "\n"
    (tmp_path / "many.jsonl").write_text(line * (MAX_RECORDS_BYTES // len(line) + 1))
    with pytest.raises(ValueError, match=f"many.jsonl is larger than {MAX_RECORDS_BYTES} bytes"):
        load_game_records(tmp_path / "many.jsonl")


def test_record_files_that_never_end_are_refused(tmp_path) -> None:
    """A symlink to /dev/zero or a FIFO would be read forever (or wait for a writer)."""
    (tmp_path / "zero.sgf").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="zero.sgf is not a regular file"):
        load_sgf(tmp_path / "zero.sgf")
    os.mkfifo(tmp_path / "pipe.jsonl")
    with pytest.raises(ValueError, match="pipe.jsonl is not a regular file"):
        load_game_records(tmp_path / "pipe.jsonl")


def test_komi_in_jsonl_follows_the_same_rule(tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({"moves": "e5", "komi": -81}) + "\n" + json.dumps({"moves": "e5", "komi": 3.0}) + "\n")
    assert [tree.root.position.komi for _, tree in load_game_records(path)] == [-81, 3]


# --- fuzzing: SGF text built from the grammar's pieces, and JSONL records of hostile fields ---
def shape(tree) -> list:
    """The tree's moves, comments and analyses in preorder: what a save and reload must keep."""
    out, pending = [], [tree.root]
    while pending:
        node = pending.pop()
        out.append((node.move, node.comment, node.analysis, len(node.children)))
        pending.extend(reversed(node.children))
    return out


def check_sgf(text: str) -> None:
    """from_sgf reads `text` or raises ValueError; what it reads is saved and read back the same."""
    try:
        tree = from_sgf(text)
    except ValueError:
        return
    assert shape(from_sgf(to_sgf(tree))) == shape(tree)


@settings(max_examples=300, deadline=None)
@given(tree_text=sgf_trees(), komi=KOMI_TEXTS, nesting=NESTING, noise=st.text(max_size=4), cut=st.integers(0, 10**6))
def test_arbitrary_sgf_is_read_or_refused(tree_text: str, komi: str, nesting: int, noise: str, cut: int) -> None:
    check_sgf(sgf_game(komi, nesting, tree_text))
    check_sgf(sgf_text(tree_text, noise, cut))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="()[];\\BWKMCZA5e \n", max_size=60))
def test_arbitrary_sgf_characters_are_read_or_refused(text: str) -> None:
    check_sgf(text)


def check_jsonl(tmp_path, lines: list[str]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_text("\n".join(lines) + "\n")
    try:
        games = load_game_records(path)
    except ValueError as e:
        assert "fuzz.jsonl" in str(e)
        return
    for _, tree in games:
        assert -81 <= tree.root.position.komi <= 81


@settings(max_examples=300, deadline=None)
@given(
    records=st.lists(st.one_of(RECORDS, JSON_VALUES), min_size=1, max_size=3), nested=st.one_of(st.none(), NESTED_JSON)
)
def test_arbitrary_jsonl_records_are_read_or_refused(tmp_path_factory, records: list, nested: str | None) -> None:
    lines = [json.dumps(r) for r in records] + ([nested] if nested else [])
    check_jsonl(tmp_path_factory.mktemp("jsonl"), lines)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None)
@given(
    tree_text=sgf_trees(),
    komi=KOMI_TEXTS,
    nesting=NESTING,
    noise=st.text(max_size=4),
    cut=st.integers(0, 10**6),
    records=st.lists(RECORDS, max_size=3),
)
def test_arbitrary_records_are_read_or_refused_long(
    tmp_path_factory, tree_text, komi, nesting, noise, cut, records
) -> None:
    check_sgf(sgf_game(komi, nesting, tree_text))
    check_sgf(sgf_text(tree_text, noise, cut))
    check_jsonl(tmp_path_factory.mktemp("jsonl"), [json.dumps(r) for r in records] or ["{}"])
