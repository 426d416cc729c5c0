"""Game files for the GUI: an SGF-style tree with variations and comments, and the
JSONL game records written by self-play, the pipeline and the arena.

The SGF dialect is FF[4] with our own game id GM[81] and AP[popucom:VERSION]; moves
are B[e5] / W[d4] in this project's notation, the root holds KM (komi, an integer)
and the usual game info (PB, PW, RE, DT, GN), C[] holds comments, and the private
property ZA[visits:winrate:score] stores a node's last analysis (Black's win rate
in [0, 1] and Black's expected floor margin). Documented in docs/data_formats.md.
Every parse error is a ValueError naming the place and the problem, for any text: komi
follows popucom.limits.check_komi (a whole number within the board's 81 floors), and the
parser keeps its own stack, so variations nested deeper than Python's recursion limit are
an error of the file (MAX_NESTING), never a RecursionError. A file larger than its cap
(MAX_SGF_BYTES, MAX_RECORDS_BYTES) or not a regular file is refused before it is parsed.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path

from .. import __version__, _core
from ..fileio import read_bounded_text
from ..limits import check_komi, parse_decimal, parse_whole
from .game_tree import GameTree, Node

GAME_ID = "81"
GAME_INFO = ("PB", "PW", "RE", "DT", "GN", "EV")
# Our writer nests one level per branching move, so no game of ours nests deeper than its
# MAX_GAME_PLIES (50) moves; ten times that leaves room for other editors' empty nodes.
MAX_NESTING = 10 * _core.MAX_GAME_PLIES
# Size caps, checked before parsing: a parsed game takes tens of times its file's bytes. An SGF
# of a reviewed game with every variation and comment is far below its cap; a JSONL file at its
# cap holds tens of thousands of games (split a larger one, e.g. `split -l 10000`).
MAX_SGF_BYTES = 1 << 20
MAX_RECORDS_BYTES = 8 << 20
RESULTS = {"black": "B+", "white": "W+", "draw": "0"}
SHOWN = 40  # characters of a bad value quoted in an error
# The most visits an analysis in a file may claim: the largest whole number a browser's
# numbers hold exactly, so the web app (web/src/records.js) reads the same files the same.
MAX_ANALYSIS_VISITS = 2**53 - 1


# --- writing ----------------------------------------------------------------------------
def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _node_text(node: Node) -> str:
    props: list[tuple[str, str]] = []
    if node.move is not None:
        colour = "B" if node.parent.position.to_move == _core.Color.BLACK else "W"
        props.append((colour, _core.square_to_text(node.move)))
    if node.comment:
        props.append(("C", node.comment))
    if node.analysis:
        a = node.analysis
        props.append(("ZA", f"{int(a['visits'])}:{a['black_winrate']:.4f}:{a['black_score']:.2f}"))
    return ";" + "".join(f"{key}[{_escape(value)}]" for key, value in props)


def _sequence_text(node: Node) -> str:
    parts = [_node_text(node)]
    while len(node.children) == 1:
        node = node.children[0]
        parts.append(_node_text(node))
    parts += [f"\n({_sequence_text(child)})" for child in node.children]
    return "".join(parts)


def to_sgf(tree: GameTree) -> str:
    start = tree.root.position
    if start != _core.Position(start.komi):
        raise ValueError("only games from the empty board can be saved as SGF")
    info = {
        "GM": GAME_ID,
        "FF": "4",
        "CA": "UTF-8",
        "AP": f"popucom:{__version__}",
        "SZ": str(_core.BOARD_SIZE),
        "KM": str(start.komi),
    }
    info.update({k: v for k, v in tree.properties.items() if k in GAME_INFO and v})
    head = ";" + "".join(f"{k}[{_escape(v)}]" for k, v in info.items())
    body = _sequence_text(tree.root)[len(_node_text(tree.root)) :]  # the root's own props follow the info
    root_props = _node_text(tree.root)[1:]
    return f"({head}{root_props}{body})\n"


def save_sgf(tree: GameTree, path: str | Path) -> Path:
    from ..fileio import write_bytes_atomic

    return write_bytes_atomic(Path(path), to_sgf(tree).encode("utf-8"))


# --- reading ----------------------------------------------------------------------------
class _Parser:
    """Recursive descent over SGF text: GameTree = "(" Node+ GameTree* ")"."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def error(self, message: str) -> ValueError:
        line = self.text.count("\n", 0, self.i) + 1
        return ValueError(f"SGF line {line}: {message}")

    def skip(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.i] if self.i < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end of the file"
            raise self.error(f"expected '{char}', found {found}")
        self.i += 1

    def game_tree(self) -> tuple[list[dict[str, list[str]]], list]:
        """The outermost game tree as (nodes, variations), each variation the same pair."""
        self.expect("(")
        root: tuple[list, list] = (self.sequence(), [])
        open_trees = [root]  # the trees whose ')' is still to come, innermost last
        while open_trees:
            if self.peek() == "(":
                if len(open_trees) >= MAX_NESTING:
                    raise self.error(f"variations nested deeper than {MAX_NESTING}")
                self.i += 1
                variation: tuple[list, list] = (self.sequence(), [])
                open_trees[-1][1].append(variation)
                open_trees.append(variation)
            else:
                self.expect(")")
                open_trees.pop()
        return root

    def sequence(self) -> list[dict[str, list[str]]]:
        """The nodes after a '(': one or more."""
        nodes = []
        while self.peek() == ";":
            self.i += 1
            nodes.append(self.node())
        if not nodes:
            raise self.error("a game tree needs at least one node ';'")
        return nodes

    def node(self) -> dict[str, list[str]]:
        props: dict[str, list[str]] = {}
        while self.peek().isalpha():
            start = self.i
            while self.i < len(self.text) and self.text[self.i].isalpha():
                self.i += 1
            key = self.text[start : self.i]
            if not key.isupper():
                raise self.error(f"property '{key}' must be upper case")
            values = []
            while self.peek() == "[":
                values.append(self.value())
            if not values:
                raise self.error(f"property {key} has no value")
            props.setdefault(key, []).extend(values)
        return props

    def value(self) -> str:
        self.i += 1  # '['
        out = []
        while True:
            if self.i >= len(self.text):
                raise self.error("a property value is not closed with ']'")
            c = self.text[self.i]
            if c == "\\":
                if self.i + 1 >= len(self.text):
                    raise self.error("the file ends inside an escape")
                nxt = self.text[self.i + 1]
                if nxt != "\n":  # an escaped newline is a soft line break: removed
                    out.append(nxt)
                self.i += 2
                continue
            self.i += 1
            if c == "]":
                return "".join(out)
            out.append(c)


def _apply_node(tree: GameTree, props: dict[str, list[str]], number: int) -> None:
    moves = [(c, v) for c in ("B", "W") for v in props.get(c, [])]
    if len(moves) > 1:
        raise ValueError(f"SGF node {number}: more than one move")
    if moves:
        colour, text = moves[0]
        to_move = "B" if tree.position.to_move == _core.Color.BLACK else "W"
        if colour != to_move:
            side = "Black" if to_move == "B" else "White"
            raise ValueError(f"SGF node {number}: {colour}[{text[:SHOWN]}] but it is {side}'s turn")
        try:
            tree.play(text)
        except ValueError as e:
            raise ValueError(f"SGF node {number}: {colour}[{text[:SHOWN]}]: {e}") from None
    if "C" in props:
        tree.current.comment = "\n".join(props["C"])
    if "ZA" in props:
        tree.current.analysis = _analysis(props["ZA"][0], number)


def _analysis(text: str, number: int) -> dict[str, float]:
    """ZA[visits:winrate:score] as a node's analysis: visits >= 0, Black's win rate in [0, 1] and
    a finite score within the board's floors, or ValueError (a NaN would reach the charts)."""
    try:
        visits, winrate, score = text.split(":")
        analysis = {
            "visits": parse_whole(visits),
            "black_winrate": parse_decimal(winrate),
            "black_score": parse_decimal(score),
        }
    except ValueError:
        raise ValueError(f"SGF node {number}: ZA[{text[:SHOWN]}] is not visits:winrate:score") from None
    if not (
        0 <= analysis["visits"] <= MAX_ANALYSIS_VISITS
        and 0.0 <= analysis["black_winrate"] <= 1.0
        and abs(analysis["black_score"]) <= _core.NUM_SQUARES
    ):
        raise ValueError(
            f"SGF node {number}: ZA[{text[:SHOWN]}] is out of range (visits >= 0, win rate in [0, 1], "
            f"score within ±{_core.NUM_SQUARES})"
        )
    return analysis


def from_sgf(text: str) -> GameTree:
    parser = _Parser(text)
    nodes, variations = parser.game_tree()
    if parser.peek():
        raise parser.error("unexpected text after the game (one game per file)")
    info = nodes[0]
    game = info.get("GM", [GAME_ID])[0]
    if game != GAME_ID:
        raise ValueError(f"SGF GM[{game[:SHOWN]}] is another game (Match-n-POP is GM[{GAME_ID}])")
    if info.get("SZ", ["9"])[0] != str(_core.BOARD_SIZE):
        raise ValueError(f"SGF SZ[{info['SZ'][0][:SHOWN]}]: the board is {_core.BOARD_SIZE}x{_core.BOARD_SIZE}")
    komi_text = info.get("KM", ["0"])[0]
    try:
        komi = check_komi(komi_text)
    except ValueError as e:
        raise ValueError(f"SGF KM[{komi_text[:SHOWN]}]: {e}") from None
    tree = GameTree(_core.Position(komi), {k: info[k][0] for k in GAME_INFO if k in info})
    # Depth first, in the file's order, with a stack of (the node a sequence starts from, its
    # nodes, its variations): nesting is bounded by MAX_NESTING, not by Python's recursion.
    pending = [(tree.root, nodes, variations)]
    number = 0
    while pending:
        tree.current, sequence, branches = pending.pop()
        for props in sequence:
            number += 1
            _apply_node(tree, props, number)
        pending.extend((tree.current, sub_nodes, sub_branches) for sub_nodes, sub_branches in reversed(branches))
    tree.current = tree.root
    return tree


def load_sgf(path: str | Path) -> GameTree:
    try:
        text = read_bounded_text(path, MAX_SGF_BYTES, "SGF file")
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e}") from e
    try:
        return from_sgf(text)
    except ValueError as e:
        raise ValueError(f"{Path(path).name}: {e}") from None


def load_game_records(path: str | Path) -> list[tuple[str, GameTree]]:
    """Every game of a JSONL record file (self-play, pipeline, arena) as (title, tree)."""
    games = []
    try:
        lines = read_bounded_text(path, MAX_RECORDS_BYTES, "game record file").splitlines()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e}") from e
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            info, tree = _record_game(line)
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{Path(path).name} line {number}: not a game record ({type(e).__name__}: {e})") from None
        title = (
            f"{len(games) + 1}: {info['PB'] or '?'} vs {info['PW'] or '?'}, {info.get('RE', '')}, "
            f"{len(tree.main_line()) - 1} moves"
        )
        games.append((title, tree))
    if not games:
        raise ValueError(f"{Path(path).name} holds no game records")
    return games


def _record_game(line: str) -> tuple[dict[str, str], GameTree]:
    """One JSONL line as its game info and tree; ValueError (or KeyError for a missing field)
    naming the field at fault."""
    try:
        record = json.loads(line)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(record, dict):
        raise ValueError(f"a line holds a JSON object, not {type(record).__name__}")
    moves = record["moves"]
    if isinstance(moves, list):
        for i, move in enumerate(moves, 1):
            if isinstance(move, bool) or not isinstance(move, (str, int)):
                raise ValueError(f"move {i} is {str(move)[:SHOWN]!r}, not a square")
    elif not isinstance(moves, str):
        raise ValueError(f"moves must be a record text or a list of squares, not {type(moves).__name__}")
    komi = check_komi(record.get("komi", 0))
    info = {"PB": str(record.get("black", ""))[:200], "PW": str(record.get("white", ""))[:200]}
    if "result" in record:
        info["RE"] = _result_text(record["result"], record.get("score", 0))
    return info, GameTree.from_moves(moves, komi, info)


def _result_text(result: object, score: object) -> str:
    """RE as SGF writes it (B+3, W+1, 0) from a record's result and score."""
    if not isinstance(result, str) or result not in RESULTS:
        raise ValueError(f"result {str(result)[:SHOWN]!r} is not one of {', '.join(RESULTS)}")
    real = isinstance(score, numbers.Real) and not isinstance(score, bool)
    if not (real and math.isfinite(score) and abs(score) <= _core.NUM_SQUARES):
        raise ValueError(f"score {str(score)[:SHOWN]!r} is not a margin within ±{_core.NUM_SQUARES} floors")
    margin = abs(score)
    return RESULTS[result] + ("" if result == "draw" else str(int(margin) if margin == int(margin) else margin))
