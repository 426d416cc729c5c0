"""A pure-Python twin of the rules, written for clarity rather than speed.

It follows docs/rules.md step by step with plain lists, and exists only so
the tests can check the C++ core against an independent implementation.
"""

from __future__ import annotations

SIZE = 9
MOVES_PER_PLAYER = 25
BLACK, WHITE = 0, 1
LINES = [(0, 1), (1, 0), (1, 1), (1, -1)]  # horizontal, vertical, two diagonals


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


class ReferencePosition:
    def __init__(self, komi: int = 0) -> None:
        self.stones: list[int | None] = [None] * (SIZE * SIZE)  # None, BLACK or WHITE
        self.floors: list[int | None] = [None] * (SIZE * SIZE)  # None (unpainted), BLACK or WHITE
        self.to_move = BLACK
        self.moves_left = [MOVES_PER_PLAYER, MOVES_PER_PLAYER]
        self.komi = komi

    def moves_exhausted(self) -> bool:
        return self.moves_left[BLACK] == 0 and self.moves_left[WHITE] == 0

    def legal_moves(self) -> list[int]:
        if self.moves_exhausted():
            return []
        opponent = 1 - self.to_move
        return [sq for sq in range(SIZE * SIZE) if self.stones[sq] is None and self.floors[sq] != opponent]

    def is_over(self) -> bool:
        return self.moves_exhausted() or not self.legal_moves()

    def score(self) -> int:
        return self.floors.count(BLACK) - self.floors.count(WHITE)

    def result(self) -> str:
        """'black', 'white', 'draw' or 'ongoing'."""
        if self.moves_exhausted():
            margin = self.score() + self.komi
            return "black" if margin > 0 else "white" if margin < 0 else "draw"
        if not self.legal_moves():
            return "white" if self.to_move == BLACK else "black"  # the player to move loses
        return "ongoing"

    def play(self, sq: int) -> None:
        assert sq in self.legal_moves(), f"illegal move {sq}"
        me, opponent = self.to_move, 1 - self.to_move
        row, col = divmod(sq, SIZE)
        self.stones[sq] = me

        removed: set[int] = set()
        painted: set[int] = set()
        for d_row, d_col in LINES:
            run = [sq]
            for sense in (1, -1):
                r, c = row + sense * d_row, col + sense * d_col
                while on_board(r, c) and self.stones[r * SIZE + c] == me:
                    run.append(r * SIZE + c)
                    r, c = r + sense * d_row, c + sense * d_col
            if len(run) < 3:
                continue
            removed.update(run)
            for sense in (1, -1):
                r, c = row + sense * d_row, col + sense * d_col
                while on_board(r, c) and self.stones[r * SIZE + c] != opponent:
                    painted.add(r * SIZE + c)
                    r, c = r + sense * d_row, c + sense * d_col

        for cell in removed:
            self.stones[cell] = None
            painted.add(cell)
        for cell in painted:
            self.floors[cell] = me

        self.moves_left[me] -= 1
        self.to_move = opponent

    def mask(self, cells: list[int | None], color: int) -> int:
        """Bitmask (bit sq) of the cells holding `color`, as the C++ core reports it."""
        return sum(1 << sq for sq, value in enumerate(cells) if value == color)
