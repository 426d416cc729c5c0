"""Game files for the GUI: an SGF-style tree with variations and comments, and the
JSONL game records written by self-play, the pipeline and the arena.

The SGF dialect is FF[4] with our own game id GM[81] and AP[popucom:VERSION]; moves
are B[e5] / W[d4] in this project's notation, the root holds KM (komi, an integer)
and the usual game info (PB, PW, RE, DT, GN), C[] holds comments, and the private
property ZA[visits:winrate:score] stores a node's last analysis (Black's win rate
in [0, 1] and Black's expected floor margin). Documented in docs/data_formats.md.
Every parse error is a ValueError naming the place and the problem.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__, _core
from .game_tree import GameTree, Node

GAME_ID = "81"
GAME_INFO = ("PB", "PW", "RE", "DT", "GN", "EV")


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
        self.expect("(")
        nodes = []
        while self.peek() == ";":
            self.i += 1
            nodes.append(self.node())
        if not nodes:
            raise self.error("a game tree needs at least one node ';'")
        variations = []
        while self.peek() == "(":
            variations.append(self.game_tree())
        self.expect(")")
        return nodes, variations

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
            raise ValueError(f"SGF node {number}: {colour}[{text}] but it is {side}'s turn")
        try:
            tree.play(text)
        except ValueError as e:
            raise ValueError(f"SGF node {number}: {colour}[{text}]: {e}") from None
    if "C" in props:
        tree.current.comment = "\n".join(props["C"])
    if "ZA" in props:
        try:
            visits, winrate, score = props["ZA"][0].split(":")
            tree.current.analysis = {
                "visits": int(visits),
                "black_winrate": float(winrate),
                "black_score": float(score),
            }
        except ValueError:
            raise ValueError(f"SGF node {number}: ZA[{props['ZA'][0]}] is not visits:winrate:score") from None


def from_sgf(text: str) -> GameTree:
    parser = _Parser(text)
    nodes, variations = parser.game_tree()
    if parser.peek():
        raise parser.error("unexpected text after the game (one game per file)")
    info = nodes[0]
    game = info.get("GM", [GAME_ID])[0]
    if game != GAME_ID:
        raise ValueError(f"SGF GM[{game}] is another game (Match-n-POP is GM[{GAME_ID}])")
    if info.get("SZ", ["9"])[0] != str(_core.BOARD_SIZE):
        raise ValueError(f"SGF SZ[{info['SZ'][0]}]: the board is {_core.BOARD_SIZE}x{_core.BOARD_SIZE}")
    komi_text = info.get("KM", ["0"])[0]
    try:
        komi = float(komi_text)
    except ValueError:
        raise ValueError(f"SGF KM[{komi_text}] is not a number") from None
    if komi != int(komi):
        raise ValueError(f"SGF KM[{komi_text}]: komi is a whole number in this game")
    tree = GameTree(_core.Position(int(komi)), {k: info[k][0] for k in GAME_INFO if k in info})
    counter = [0]

    def walk(nodes: list[dict[str, list[str]]], variations: list) -> None:
        for props in nodes:
            counter[0] += 1
            _apply_node(tree, props, counter[0])
        branch = tree.current
        for sub_nodes, sub_variations in variations:
            tree.current = branch
            walk(sub_nodes, sub_variations)

    walk(nodes, variations)
    tree.current = tree.root
    return tree


def load_sgf(path: str | Path) -> GameTree:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e
    try:
        return from_sgf(text)
    except ValueError as e:
        raise ValueError(f"{Path(path).name}: {e}") from None


def load_game_records(path: str | Path) -> list[tuple[str, GameTree]]:
    """Every game of a JSONL record file (self-play, pipeline, arena) as (title, tree)."""
    games = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            moves = record["moves"]
            komi = int(record.get("komi", 0))
            info = {"PB": str(record.get("black", "")), "PW": str(record.get("white", ""))}
            if "result" in record:
                info["RE"] = {"black": "B+", "white": "W+", "draw": "0"}.get(record["result"], "?") + (
                    str(abs(record.get("score", 0))) if record["result"] != "draw" else ""
                )
            tree = GameTree.from_moves(moves, komi, info)
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
