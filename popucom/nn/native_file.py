"""A network as a native network file (`.pcnet`, csrc/nn/native_net_file.h): the folded
weights the native forward runs, with no torch needed to read them. The browser's engine plays
the shipped models from these files (popucom.web.build writes them from the checkpoints).

`network_file_bytes(net)` is a network's file, `write_network_file(net, path)` writes one
atomically, and `network_file_shape(data)` reads a file's shape back (ValueError naming what
is wrong with bytes that are no such file).
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import _core
from ..fileio import write_bytes_atomic
from .model import PopucomNet
from .native import native_spec, network_refusal

NETWORK_FILE_SUFFIX = ".pcnet"


def network_file_bytes(net: PopucomNet) -> bytes:
    """The bytes of `net`'s network file. ValueError for a network the native forward cannot
    run on any CPU."""
    refusal = network_refusal(net)
    if refusal is not None:
        raise ValueError(f"no network file for this network: {refusal}")
    return _core.native_net_file(native_spec(net))


def write_network_file(net: PopucomNet, path: str | os.PathLike) -> Path:
    """Writes `net`'s network file at `path` (atomically); returns the path."""
    return write_bytes_atomic(path, network_file_bytes(net))


def network_file_shape(data: bytes) -> dict[str, int | bool]:
    """The shape a network file holds (planes, d, layers, heads, mlp_hidden, head_hidden,
    legal_plane, value_error)."""
    return dict(_core.native_net_file_shape(data))
