"""The web app's game-record reader (web/src/records.js over the real rules, the C++ core in
wasm) against the GUI's (popucom/gui/records.py), on the same fuzzed text: records.js says it
reads and writes records exactly as records.py does, so on every input both read the same tree
(moves, comments, analyses, variations, in order) or both refuse it, the page with a
RecordError that names the problem and nothing else (no TypeError, no "undefined").

The texts come from tests/record_strategies.py (the GUI's record fuzzer's strategies: SGF from
the grammar's pieces, damaged and cut short, JSONL with hostile fields) and from real games
with variations, comments and analyses written with hostile values. One node process
(web/test/records_probe.mjs) reads them all, a line each.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from page_errors import is_clear
from record_strategies import JSON_VALUES, KOMI_TEXTS, NESTING, RECORDS, sgf_game, sgf_text, sgf_trees

from popucom import _core
from popucom.gui.records import from_sgf, load_game_records

PROBE = Path(__file__).resolve().parents[2] / "web" / "test" / "records_probe.mjs"


class RecordsProbe:
    """The page's reader in one node process: read(format, text) -> the probe's reply."""

    def __init__(self, node: str, dist: Path) -> None:
        self.process = subprocess.Popen(
            [node, "--no-experimental-fetch", str(PROBE), str(dist)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def read(self, format: str, text: str) -> dict:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"format": format, "text": text}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the records probe ended (exit {self.process.poll()})"
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def probe(node: str, web_dist: Path) -> Iterator[RecordsProbe]:
    reader = RecordsProbe(node, web_dist)
    yield reader
    reader.close()


def python_shape(tree) -> list:
    """records.py's tree in preorder, in the probe's terms: [move, comment, analysis, children]."""
    out, pending = [], [tree.root]
    while pending:
        node = pending.pop()
        move = None if node.move is None else _core.square_to_text(node.move)
        a = node.analysis
        analysis = None if a is None else [a["visits"], a["black_winrate"], a["black_score"]]
        out.append([move, node.comment, analysis, len(node.children)])
        pending.extend(reversed(node.children))
    return out


def python_read(format: str, text: str, folder: Path) -> list | str:
    """What records.py makes of `text`: the games' shapes, or its refusal's message."""
    try:
        if format == "sgf":
            return [python_shape(from_sgf(text))]
        path = folder / "fuzz.jsonl"
        path.write_text(text, encoding="utf-8")
        return [python_shape(tree) for _, tree in load_game_records(path)]
    except ValueError as e:
        return str(e)


def check_same_reading(probe: RecordsProbe, format: str, text: str, folder: Path) -> None:
    python = python_read(format, text, folder)
    page = probe.read(format, text)
    if isinstance(python, str):
        assert not page["ok"], f"records.py refused ({python[:200]}) but the page read {page['games']}"
        assert page["name"] == "RecordError", page
        assert is_clear(page["message"]), page
    else:
        assert page["ok"], f"records.py read it but the page refused: {page}"
        assert page["games"] == python


# --- real games written with hostile comments and analyses ------------------------------------

COMMENTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "]", "\\", "\\]", "a\\\\b", "\n", "\r\n", "<b>x</b>", "C[", "(;", "\u2028", "🀄"]),
)
ANALYSES = st.one_of(
    st.sampled_from(
        [
            "10:0.5:3",
            "0:0:0",
            "1:1:-81",
            "5:1.0:81.0",
            " 10:0.5:3",
            "10:0.5:3 ",
            "1_0:0.5:3",
            "10:.5:3",
            "10:0.5:+3",
            "10:0.5:1e1",
            "10:5e-1:3",
            "1e3:0.5:3",
            "10:0x1:3",
            "10:0.5:82",
            "10:1.5:3",
            "-1:0.5:3",
            "10:nan:3",
            "10:0.5:inf",
            "10:0.5",
            "10:0.5:3:4",
            "١٠:0.5:3",
            "10:0.5:٣",
            "9223372036854775808:0.5:3",
            "9007199254740993:0.5:3",
        ]
    ),
    st.tuples(st.integers(-2, 2**64), st.floats(), st.floats()).map(lambda t: f"{t[0]}:{t[1]}:{t[2]}"),
)


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


@st.composite
def played_sgf(draw: st.DrawFn) -> str:
    """A real game with variations (legal moves from random positions), every node drawn a
    comment, an analysis or nothing, and moves written in either case."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    komi = draw(st.integers(-_core.NUM_SQUARES, _core.NUM_SQUARES))

    def node_text(position: _core.Position, move: int) -> str:
        colour = "B" if position.to_move == _core.Color.BLACK else "W"
        name = _core.square_to_text(move)
        text = f";{colour}[{name.upper() if rng.random() < 0.2 else name}]"
        if draw(st.booleans()):
            text += f"C[{_escaped(draw(COMMENTS))}]"
        if draw(st.booleans()):
            text += f"ZA[{_escaped(draw(ANALYSES))}]"
        return text

    def line(position: _core.Position, depth: int) -> str:
        text = ""
        for _ in range(rng.randint(1, 6)):
            legal = list(position.legal_moves())
            if not legal:
                break
            if depth < 2 and rng.random() < 0.3:
                branches = rng.sample(legal, min(len(legal), 2))
                return text + "".join(
                    "(" + node_text(position, m) + line(position.play(m), depth + 1) + ")" for m in branches
                )
            move = rng.choice(legal)
            text += node_text(position, move)
            position = position.play(move)
            if position.is_over:
                break
        return text

    return f"(;GM[81]FF[4]SZ[9]KM[{komi}]{line(_core.Position(komi), 0)})"


# --- the properties ---------------------------------------------------------------------------

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(text=played_sgf())
def test_real_games_with_hostile_comments_and_analyses_read_the_same(probe, tmp_path: Path, text: str) -> None:
    check_same_reading(probe, "sgf", text, tmp_path)


@FUZZ
@given(tree_text=sgf_trees(), komi=KOMI_TEXTS, nesting=NESTING, noise=st.text(max_size=4), cut=st.integers(0, 10**6))
def test_arbitrary_sgf_reads_the_same_or_is_refused_by_both(
    probe, tmp_path: Path, tree_text: str, komi: str, nesting: int, noise: str, cut: int
) -> None:
    check_same_reading(probe, "sgf", sgf_game(komi, nesting, tree_text), tmp_path)
    check_same_reading(probe, "sgf", sgf_text(tree_text, noise, cut), tmp_path)


@FUZZ
@given(records=st.lists(st.one_of(RECORDS, JSON_VALUES), min_size=1, max_size=3))
def test_arbitrary_jsonl_reads_the_same_or_is_refused_by_both(probe, tmp_path: Path, records: list) -> None:
    check_same_reading(probe, "jsonl", "\n".join(json.dumps(r) for r in records) + "\n", tmp_path)
