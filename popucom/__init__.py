"""Popucom Zero: an AlphaZero/KataGo-style engine for Match-n-POP (Popucom chess).

The rules, the feature encoder and the search live in the compiled core
(``popucom._core``); this package re-exports its public names.
"""

from .core_location import find_core
from .cpu_load import default_openmp_wait
from .torch_first import torch_must_load_first

# In a clone after a plain `pip install .`, Python imports this source folder, which has no
# compiled core, ahead of the installed package: use the installed one's (popucom.core_location).
find_core(__name__, __path__)

# Before torch: its OpenMP runtime reads the wait policy once, when torch loads it. Where another
# process keeps a core busy, idle OpenMP threads sleep instead of spinning (popucom.cpu_load).
default_openmp_wait()

# A GPU build of torch is loaded before the compiled core: loaded after it, it crashed
# (popucom.torch_first). A CPU build loads with the first module that needs it.
if torch_must_load_first():
    try:
        import torch  # noqa: F401
    except ImportError:  # the rules, the bots and the search work without it
        pass

from ._core import (  # noqa: E402
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


def _read_version() -> str:
    """The installed distribution's version (package metadata); in a source tree without
    metadata, the version in pyproject.toml beside the package."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("popucom")
    except PackageNotFoundError:
        pass
    import re
    from pathlib import Path

    try:
        text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    except OSError:
        return "0+unknown"
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    return found.group(1) if found else "0+unknown"


__version__ = _read_version()

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
