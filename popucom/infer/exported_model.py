"""An exported model (.onnx) as every CPU runtime that reads one is given it: checked the same
way, with the same messages, before ONNX Runtime (onnx_backend.py) or OpenVINO
(openvino_backend.py) runs it.

`open_exported(path)` refuses a missing file (FileNotFoundError) and a file that is not a model
of this build (ValueError: unreadable, not ours, another feature version, other outputs) and
returns its metadata. `check_interface(path, inputs, outputs)` refuses a model whose input or
outputs, as the runtime reports them after loading it, are not the deployed model's
(popucom.nn.outputs.OUTPUTS): the metadata could say one thing and the graph another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import _core
from ..nn.export import INPUT_NAME, check_metadata, read_metadata
from ..nn.outputs import OUTPUTS

# A dimension as a runtime reports it: a size, or a name / None / -1 for a dynamic one.
Dimension = int | str | None


def open_exported(path: str | Path) -> dict[str, str]:
    """The checked metadata of the exported model at `path` (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no model at {path}")
    metadata = read_metadata(path)
    check_metadata(metadata, path)
    return metadata


def check_interface(
    path: str | Path,
    inputs: Sequence[tuple[str, Sequence[Dimension]]],
    outputs: Mapping[str, Sequence[Dimension]],
) -> None:
    """ValueError unless the model has one input, INPUT_NAME of shape [N, planes, 9, 9], and
    exactly the outputs of OUTPUTS with their shapes per position. Shapes include the batch
    dimension, which is not checked (every runtime here runs it dynamic)."""
    planes = [_core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE]
    if len(inputs) != 1 or inputs[0][0] != INPUT_NAME or list(inputs[0][1][1:]) != planes:
        raise ValueError(
            f"{path}: input is {[(name, list(shape)) for name, shape in inputs]}, expected "
            f"'{INPUT_NAME}' of shape [N, {_core.NUM_FEATURE_PLANES}, 9, 9]"
        )
    found = {name: list(shape[1:]) for name, shape in outputs.items()}
    expected = {o.name: list(o.shape) for o in OUTPUTS}
    if found != expected:
        raise ValueError(f"{path}: outputs (name: shape per position) are {found}, expected {expected}")
