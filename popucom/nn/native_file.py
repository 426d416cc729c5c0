"""A network as a native network file (`.pcnet`, csrc/nn/native_net_file.h): the folded
weights the native forward runs, read with no torch. The browser's engine plays the shipped
models from these files (popucom.web.build writes them from the checkpoints), and the native
backend runs them (popucom.infer.native_backend); `popucom export --out NAME.pcnet` writes one.

`network_file_bytes(net)` is a network's file, `write_network_file(net, path)` writes one
atomically, `network_file_shape(data)` reads a file's shape back, and `FileForward` runs one
(ValueError naming what is wrong with bytes that are no such file).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from ..fileio import read_bounded, write_bytes_atomic
from .outputs import OUTPUTS

if TYPE_CHECKING:
    from .model import PopucomNet

NETWORK_FILE_SUFFIX = ".pcnet"
# The largest network file read: well above any preset's weights (the file holds them in
# float32 and nothing else), far below what would exhaust a player's memory.
MAX_NETWORK_FILE_BYTES = 1 << 30


def network_file_bytes(net: PopucomNet) -> bytes:
    """The bytes of `net`'s network file. ValueError for a network the native forward cannot
    run on any CPU."""
    from .native import native_spec, network_refusal

    refusal = network_refusal(net)
    if refusal is not None:
        raise ValueError(f"no network file for this network: {refusal}")
    return _core.native_net_file(native_spec(net))


def write_network_file(net: PopucomNet, path: str | os.PathLike) -> Path:
    """Writes `net`'s network file at `path` (atomically); returns the path."""
    return write_bytes_atomic(path, network_file_bytes(net))


def network_file_shape(data: bytes) -> dict[str, int | bool]:
    """The shape a network file holds (planes, d, layers, heads, mlp_hidden, head_hidden,
    legal_plane, feature_version, value_error)."""
    return dict(_core.native_net_file_shape(data))


class FileForward:
    """A network file's network on the native forward: features (N, planes, 9, 9) or (N, planes,
    81) float32 -> its outputs (outputs.OUTPUTS order, value_error where it has that head), on
    `threads` threads of its own, with bf16 or float32 products."""

    def __init__(self, path: str | os.PathLike, threads: int = 1, bf16: bool = False) -> None:
        data = read_bounded(path, MAX_NETWORK_FILE_BYTES, "the network file")
        try:
            shape = network_file_shape(data)
            self.net = _core.NativeNet.from_file_bytes(data, threads, bf16=bf16)
        except (ValueError, RuntimeError) as e:
            raise ValueError(f"{path}: {e}") from None
        self.planes = int(shape["planes"])
        self.feature_version = int(shape["feature_version"])
        self.output_names = tuple(o.name for o in OUTPUTS if o.name != "value_error" or shape["value_error"])
        self.threads, self.bf16, self.piece_positions = threads, bf16, self.net.piece_positions

    def __call__(self, features: np.ndarray) -> tuple[np.ndarray, ...]:
        x = np.ascontiguousarray(features, np.float32)
        if x.ndim == 4:  # (N, planes, 9, 9)
            x = x.reshape(len(x), self.planes, _core.NUM_SQUARES)
        return self.net.forward(x, self.planes)
