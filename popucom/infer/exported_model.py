"""An exported model (.onnx) as every CPU runtime that reads one is given it: checked the same
way, with the same messages, before ONNX Runtime (onnx_backend.py) or OpenVINO
(openvino_backend.py) runs it.

`open_exported(path)` refuses a missing file (FileNotFoundError) and a file that is not a model
of this build (ValueError: unreadable, not ours, another feature version, other outputs) and
returns its metadata. `check_interface(path, inputs, outputs, names)` refuses a model whose input
or outputs, as the runtime reports them after loading it, are not the deployed model's: one input
INPUT_NAME, float32 [N, NUM_FEATURE_PLANES, 9, 9], and exactly the outputs its metadata names
(those of popucom.nn.outputs.OUTPUTS, an optional one perhaps absent), float32
[N, *per-position shape], with the batch N dynamic in every one. The metadata could say one
thing and the graph another, and a graph with a fixed batch of 1 loads and runs one position,
then fails on the search's first batch of two.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from .. import _core
from ..nn.export import INPUT_NAME, check_metadata, read_metadata
from ..nn.outputs import OUTPUTS_BY_NAME

# A dimension as a runtime reports it: a size, or a name / None / -1 for a dynamic one.
Dimension = int | str | None
DTYPE = "float32"  # of the input and of every output


class Port(NamedTuple):
    """An input or output as a runtime reports it; dtype in numpy's words (float32, float64, ...)."""

    name: str
    shape: Sequence[Dimension]
    dtype: str


def open_exported(path: str | Path) -> dict[str, str]:
    """The checked metadata of the exported model at `path` (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no model at {path}")
    metadata = read_metadata(path)
    check_metadata(metadata, path)
    return metadata


def _is_dynamic(dimension: Dimension) -> bool:
    return not isinstance(dimension, int) or dimension < 0


def _check_port(path: Path, kind: str, port: Port, per_position: list[int]) -> None:
    """ValueError unless `port` is float32 of shape [N, *per_position] with N dynamic."""
    shape = list(port.shape)
    expected = f"[N, {', '.join(map(str, per_position))}]" if per_position else "[N]"
    if port.dtype != DTYPE:
        raise ValueError(f"{path}: {kind} '{port.name}' is {port.dtype}, expected {DTYPE}")
    if len(shape) != 1 + len(per_position) or shape[1:] != per_position:
        raise ValueError(f"{path}: {kind} '{port.name}' has shape {shape}, expected {expected}")
    if not _is_dynamic(shape[0]):
        raise ValueError(
            f"{path}: {kind} '{port.name}' has a fixed batch of {shape[0]}; popucom models take any batch "
            f"(shape {expected}, N dynamic): export it again with `popucom export`"
        )


def check_interface(path: str | Path, inputs: Sequence[Port], outputs: Sequence[Port], names: Sequence[str]) -> None:
    """ValueError unless the runtime's view of the model is the deployed interface (the module
    docstring): names first, then each one's dtype, shape and dynamic batch."""
    path = Path(path)
    planes = [_core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE]
    if len(inputs) != 1 or inputs[0].name != INPUT_NAME:
        raise ValueError(
            f"{path}: inputs are {[(p.name, list(p.shape)) for p in inputs]}, expected one, "
            f"'{INPUT_NAME}' of shape [N, {', '.join(map(str, planes))}]"
        )
    found = {p.name: list(p.shape[1:]) for p in outputs}
    expected = {name: list(OUTPUTS_BY_NAME[name].shape) for name in names}
    if set(found) != set(expected) or len(outputs) != len(expected):
        raise ValueError(f"{path}: outputs (name: shape per position) are {found}, expected {expected}")
    _check_port(path, "input", inputs[0], planes)
    for port in outputs:
        _check_port(path, "output", port, expected[port.name])
