"""Game records (JSON lines, docs/data_formats.md): the fields self-play and the arena share."""

from __future__ import annotations

import json
from collections.abc import Iterable

from .. import _core

RESULT_NAMES = {_core.Result.BLACK_WIN: "black", _core.Result.WHITE_WIN: "white", _core.Result.DRAW: "draw"}


def outcome_fields(final: _core.Position) -> dict:
    """result, score (black - white floors) and how the game ended, for a finished position."""
    return {
        "result": RESULT_NAMES[final.result],
        "score": final.score,
        "end": "no_legal_move" if final.end_reason == _core.EndReason.NO_LEGAL_MOVE else "moves_exhausted",
    }


def to_jsonl(records: Iterable[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)
