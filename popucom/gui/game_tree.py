"""The game tree a player reviews: every move a node, other moves from the same position
variations. Pure Python (no Qt), so the rules of navigation are tested on their own.

A node's first child continues its line (the main line from the root follows first
children); promoting a node makes it the first child at every branch above it. Each
node caches its position; `analysis` holds the last search summary for the node
(visits, Black's win rate, Black's expected score), saved with the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import _core


@dataclass(eq=False)
class Node:
    move: int | None  # None only at the root
    parent: Node | None
    position: _core.Position
    children: list[Node] = field(default_factory=list)
    comment: str = ""
    analysis: dict[str, float] | None = None  # visits, black_winrate, black_score

    @property
    def depth(self) -> int:
        return self.position.ply - (self.root().position.ply)

    def root(self) -> Node:
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def path(self) -> list[Node]:
        """From the root down to this node."""
        nodes, node = [], self
        while node is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def line_end(self) -> Node:
        node = self
        while node.children:
            node = node.children[0]
        return node

    @property
    def is_variation_head(self) -> bool:
        """A node that starts a variation: not the first child of its parent."""
        return self.parent is not None and self.parent.children[0] is not self

    def label(self) -> str:
        if self.move is None:
            return "start"
        colour = "B" if self.parent.position.to_move == _core.Color.BLACK else "W"
        return f"{self.depth}. {colour} {_core.square_to_text(self.move)}"


class GameTree:
    def __init__(self, start: _core.Position | None = None, properties: dict[str, str] | None = None) -> None:
        self.root = Node(None, None, start if start is not None else _core.Position())
        self.current = self.root
        self.properties: dict[str, str] = dict(properties or {})  # game info: PB, PW, RE, ...

    @classmethod
    def from_moves(cls, moves: list[int] | str, komi: int = 0, properties: dict[str, str] | None = None) -> GameTree:
        tree = cls(_core.Position(komi), properties)
        for move in _core.parse_record(moves) if isinstance(moves, str) else moves:
            tree.play(move)
        tree.current = tree.root
        return tree

    @property
    def position(self) -> _core.Position:
        return self.current.position

    def play(self, move: _core.Move) -> Node:
        """Plays a move at the current node: goes to the existing child for it or adds a new one
        (a variation if the node already has children). Raises ValueError for an illegal move."""
        square = _core.parse_square(move)
        for child in self.current.children:
            if child.move == square:
                self.current = child
                return child
        position = self.current.position.play(square)  # raises ValueError with the reason
        child = Node(square, self.current, position)
        self.current.children.append(child)
        self.current = child
        return child

    def add_line(self, moves: list[int]) -> None:
        for move in moves:
            self.play(move)

    # --- navigation -------------------------------------------------------------------
    def go_to(self, node: Node) -> None:
        if node.root() is not self.root:
            raise ValueError("that node is not in this game tree")
        self.current = node

    def back(self) -> bool:
        if self.current.parent is None:
            return False
        self.current = self.current.parent
        return True

    def forward(self) -> bool:
        if not self.current.children:
            return False
        self.current = self.current.children[0]
        return True

    def to_start(self) -> None:
        self.current = self.root

    def to_end(self) -> None:
        self.current = self.current.line_end()

    def sibling(self, step: int) -> bool:
        """Moves to the previous (-1) or next (+1) variation at the current node's branch."""
        parent = self.current.parent
        if parent is None:
            return False
        i = parent.children.index(self.current) + step
        if not 0 <= i < len(parent.children):
            return False
        self.current = parent.children[i]
        return True

    # --- editing ----------------------------------------------------------------------
    def delete(self, node: Node) -> None:
        """Removes a node and everything below it; the current node moves to its parent if it
        was inside. The root cannot be deleted."""
        if node.parent is None:
            raise ValueError("the start of the game cannot be deleted")
        inside = self.current
        while inside is not None and inside is not node:
            inside = inside.parent
        if inside is node:
            self.current = node.parent
        node.parent.children.remove(node)

    def promote(self, node: Node) -> None:
        """Makes the line through `node` the main line: first child at every branch above."""
        while node.parent is not None:
            siblings = node.parent.children
            siblings.remove(node)
            siblings.insert(0, node)
            node = node.parent

    def main_line(self) -> list[Node]:
        return self.root.line_end().path()

    def current_line(self) -> list[Node]:
        """The current node's path from the root, continued by first children to the end."""
        return self.current.line_end().path()

    def nodes(self) -> list[Node]:
        out, stack = [], [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out
