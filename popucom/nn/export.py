"""ONNX export with a dynamic batch, named outputs (outputs.OUTPUTS) and metadata.

The metadata (feature version, preset, model config, head layout) lets every
loader refuse a model that does not fit this build before it plays a move.
"""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path

import torch

from .. import _core
from ..fileio import write_bytes_atomic
from .model import ExportWrapper, PopucomNet
from .outputs import OUTPUT_NAMES

ONNX_FORMAT = "popucom-onnx"
ONNX_FORMAT_VERSION = 1
INPUT_NAME = "features"
OPSET = 18


def export_onnx(net: PopucomNet, path: str | Path, extra_metadata: dict[str, str] | None = None) -> Path:
    """Writes `net` as ONNX (atomically), checks it with onnx.checker and returns the path."""
    import onnx

    wrapper = ExportWrapper(net).eval().cpu()
    example = torch.zeros(2, _core.NUM_FEATURE_PLANES, _core.BOARD_SIZE, _core.BOARD_SIZE)
    example[:, [n for n, _ in _core.FEATURE_PLANES].index("legal_moves")] = 1.0
    exporter_log = logging.getLogger("torch.onnx")
    level = exporter_log.level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exporter_log.setLevel(logging.ERROR)  # it warns about optional torchvision ops
        try:
            program = torch.onnx.export(
                wrapper,
                (example,),
                dynamo=True,
                opset_version=OPSET,
                input_names=[INPUT_NAME],
                output_names=list(OUTPUT_NAMES),
                dynamic_shapes={"features": {0: torch.export.Dim("batch")}},
                verbose=False,
            )
        finally:
            exporter_log.setLevel(level)
    model = program.model_proto
    metadata = {
        "popucom_format": ONNX_FORMAT,
        "popucom_format_version": str(ONNX_FORMAT_VERSION),
        "feature_version": str(_core.FEATURE_VERSION),
        "num_feature_planes": str(_core.NUM_FEATURE_PLANES),
        "preset": net.config.preset,
        "model_config": json.dumps(net.config.to_dict()),
        "outputs": ",".join(OUTPUT_NAMES),
        **(extra_metadata or {}),
    }
    del model.metadata_props[:]
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    return write_bytes_atomic(path, model.SerializeToString())


def read_metadata(path: str | Path) -> dict[str, str]:
    import onnx

    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError and friends for corrupt files
        raise ValueError(f"{path} is not a readable ONNX model ({type(e).__name__}: {e})") from e
    return {p.key: p.value for p in model.metadata_props}


def check_metadata(metadata: dict[str, str], path: str | Path) -> None:
    """Raises ValueError saying why a model cannot be used by this build."""
    if metadata.get("popucom_format") != ONNX_FORMAT:
        raise ValueError(f"{path} is not a popucom model (no popucom metadata; export it with `popucom export`)")
    if metadata.get("feature_version") != str(_core.FEATURE_VERSION):
        raise ValueError(
            f"{path} was trained on feature version {metadata.get('feature_version')}, "
            f"this build encodes version {_core.FEATURE_VERSION}"
        )
    if metadata.get("outputs") != ",".join(OUTPUT_NAMES):
        raise ValueError(f"{path} has outputs '{metadata.get('outputs')}', expected '{','.join(OUTPUT_NAMES)}'")
