"""A Qt item model over a GameTree, for a QTreeView.

Lines are flattened so a long game does not nest 50 levels deep: the top level
lists the main line (the root and its first-child chain); under a node sit the
variations that branch after it, and under a variation's first node the rest of
that variation's line. Every game-tree node is exactly one row:
  - the root is row 0 of the top level;
  - a first child is the row after its parent, in its parent's container;
  - any other child (a variation head) is a row under its parent, after the
    parent's own line rows if the parent heads a variation.
Trees here are small (at most 50 plies deep), so rows are found by walking.
`node_text` is a node's label in the GUI's language (the move list uses it too).
"""

from __future__ import annotations

from typing import TypeAlias

from PySide6.QtCore import QAbstractItemModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from .. import _core
from .game_tree import GameTree, Node

Index: TypeAlias = QModelIndex | QPersistentModelIndex


def node_text(node: Node) -> str:
    """`start`, or the move number, the mover and the square: `3. B c3` (Node.label, translated)."""
    translate = QCoreApplication.translate
    if node.move is None or node.parent is None:
        return translate("GameTree", "start", "the empty board before the first move")
    black = node.parent.position.to_move == _core.Color.BLACK
    colour = translate("GameTree", "B", "Black's move") if black else translate("GameTree", "W", "White's move")
    return f"{node.depth}. {colour} {_core.square_to_text(node.move)}"


def _line_rest(node: Node) -> list[Node]:
    out = []
    while node.children:
        node = node.children[0]
        out.append(node)
    return out


class GameTreeModel(QAbstractItemModel):
    def __init__(self, tree: GameTree) -> None:
        super().__init__()
        self.tree = tree

    def set_tree(self, tree: GameTree) -> None:
        self.beginResetModel()
        self.tree = tree
        self.endResetModel()

    def refresh(self) -> None:
        """Call after the tree's structure changed (a move, a delete, a promote)."""
        self.beginResetModel()
        self.endResetModel()

    # --- the flattening -------------------------------------------------------------------
    def container(self, node: Node) -> Node | None:
        """The node whose rows hold `node`; None for the top level."""
        if node.parent is None:
            return None
        if node.is_variation_head:
            return node.parent
        parent = node.parent
        if parent.is_variation_head:
            return parent
        return self.container(parent)

    def rows(self, container: Node | None) -> list[Node]:
        if container is None:
            return [self.tree.root, *_line_rest(self.tree.root)]
        own = _line_rest(container) if container.is_variation_head else []
        return own + container.children[1:]

    def index_of(self, node: Node) -> QModelIndex:
        container = self.container(node)
        return self.createIndex(self.rows(container).index(node), 0, node)

    # --- QAbstractItemModel ---------------------------------------------------------------
    def node(self, index: Index) -> Node | None:
        return index.internalPointer() if index.isValid() else None

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        rows = self.rows(self.node(parent))
        if column != 0 or not 0 <= row < len(rows):
            return QModelIndex()
        return self.createIndex(row, 0, rows[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        node = self.node(index)
        if node is None:
            return QModelIndex()
        container = self.container(node)
        return QModelIndex() if container is None else self.index_of(container)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.column() > 0:
            return 0
        return len(self.rows(self.node(parent)))

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 1

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        node = self.node(index)
        if node is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            text = node_text(node)
            if node.is_variation_head and node.parent is not None:
                number = node.parent.children.index(node)
                text += "  " + QCoreApplication.translate("GameTree", "(variation {number})").format(number=number)
            return text + ("  ✎" if node.comment else "")
        if role == Qt.ItemDataRole.ToolTipRole and node.comment:
            return node.comment
        if role == Qt.ItemDataRole.FontRole and node is self.tree.current:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and node.is_variation_head:
            return QBrush(QColor(30, 90, 170))
        return None
