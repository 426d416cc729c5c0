"""Popucom Zero: an AlphaZero/KataGo-style engine for Match-n-POP (Popucom chess).

The rules, the feature encoder and the search live in the compiled core
(``popucom._core``); this package re-exports its public names.
"""

from ._core import (
    BOARD_SIZE,
    FEATURE_PLANES,
    FEATURE_VERSION,
    KOMI_SCALE,
    MATCH_LENGTH,
    MOVES_PER_PLAYER,
    NUM_FEATURE_PLANES,
    NUM_SQUARES,
    NUM_SYMMETRIES,
    PACKED_WORDS,
    Color,
    EndReason,
    Game,
    Position,
    Result,
    encode_batch,
    encode_position,
    format_record,
    inverse_symmetry,
    parse_record,
    parse_square,
    random_playouts,
    square_to_text,
    transform_square,
)

__version__ = "0.1.0"

__all__ = [
    "BOARD_SIZE",
    "FEATURE_PLANES",
    "FEATURE_VERSION",
    "KOMI_SCALE",
    "MATCH_LENGTH",
    "MOVES_PER_PLAYER",
    "NUM_FEATURE_PLANES",
    "NUM_SQUARES",
    "NUM_SYMMETRIES",
    "PACKED_WORDS",
    "Color",
    "EndReason",
    "Game",
    "Position",
    "Result",
    "encode_batch",
    "encode_position",
    "format_record",
    "inverse_symmetry",
    "parse_record",
    "parse_square",
    "random_playouts",
    "square_to_text",
    "transform_square",
]
