"""ONNX export with a dynamic batch, named outputs (outputs.OUTPUTS) and metadata.

The metadata (feature version, preset, model config, head layout) lets every
loader refuse a model that does not fit this build before it plays a move.
"""

from __future__ import annotations

import hashlib
import json
import logging
import warnings
from pathlib import Path

import torch

from .. import _core
from ..fileio import write_bytes_atomic
from .model import ExportWrapper, PopucomNet
from .outputs import check_output_names

ONNX_FORMAT = "popucom-onnx"
ONNX_FORMAT_VERSION = 1
INPUT_NAME = "features"
OPSET = 18


def export_onnx(
    net: PopucomNet, path: str | Path, extra_metadata: dict[str, str] | None = None, template: str | Path | None = None
) -> Path:
    """Writes `net` as ONNX (atomically), checks it with onnx.checker and returns the path.
    With `template`, the graph keeps every parameter as an initializer of its own name (no
    constant folding; onnxruntime and TensorRT fold at load) and is also written there, so
    that later exports of the same architecture only swap the weights (export_from_template)."""
    model = _exported_graph(net, optimize=template is None)
    if template is not None:
        write_bytes_atomic(template, model.SerializeToString())
    return _write_model(model, net, path, extra_metadata)


def template_key(net: PopucomNet) -> str:
    """What a template export depends on: the architecture, this format and the exporter."""
    identity = json.dumps([net.config.to_dict(), ONNX_FORMAT_VERSION, OPSET, torch.__version__], sort_keys=True)
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def export_from_template(
    net: PopucomNet, path: str | Path, template: str | Path, extra_metadata: dict[str, str] | None = None
) -> Path:
    """export_onnx in well under a second: the template's graph (export_onnx(template=...) of
    a network of the same architecture) with `net`'s parameters and buffers swapped in by name.
    ValueError when the template does not fit `net` exactly (every initializer a tensor of
    `net` of the same shape, every parameter used); the caller then exports afresh, and
    should compare the result with torch (infer/parity.py), as the pipeline does."""
    import onnx
    from onnx import helper, numpy_helper

    try:
        model = onnx.load(str(template), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError and friends for corrupt files
        raise ValueError(f"export template {template} is unreadable ({type(e).__name__}: {e})") from e
    wrapper = ExportWrapper(net)
    tensors = {**dict(wrapper.named_parameters()), **dict(wrapper.named_buffers())}
    used = set()
    for initializer in model.graph.initializer:
        tensor = tensors.get(initializer.name)
        if tensor is None or tuple(initializer.dims) != tuple(tensor.shape):
            raise ValueError(f"export template {template} has an initializer {initializer.name!r} the network lacks")
        dtype = helper.tensor_dtype_to_np_dtype(initializer.data_type)
        array = tensor.detach().cpu().numpy().astype(dtype, copy=False)
        initializer.CopyFrom(numpy_helper.from_array(array, initializer.name))
        used.add(initializer.name)
    missing = sorted(name for name, _ in wrapper.named_parameters() if name not in used)
    if missing:
        raise ValueError(f"export template {template} lacks the parameters {', '.join(missing[:5])}")
    return _write_model(model, net, path, extra_metadata)


def _exported_graph(net: PopucomNet, optimize: bool):
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
                optimize=optimize,
                input_names=[INPUT_NAME],
                output_names=[o.name for o in net.outputs],
                dynamic_shapes={"features": {0: torch.export.Dim("batch")}},
                verbose=False,
            )
        finally:
            exporter_log.setLevel(level)
    return program.model_proto


def _write_model(model, net: PopucomNet, path: str | Path, extra_metadata: dict[str, str] | None) -> Path:
    """The model with this build's metadata, checked, written atomically."""
    import onnx

    metadata = {
        "popucom_format": ONNX_FORMAT,
        "popucom_format_version": str(ONNX_FORMAT_VERSION),
        "feature_version": str(_core.FEATURE_VERSION),
        "num_feature_planes": str(_core.NUM_FEATURE_PLANES),
        "preset": net.config.preset,
        "model_config": json.dumps(net.config.to_dict()),
        "outputs": ",".join(o.name for o in net.outputs),
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
    # Exported models keep their weights inside the file; a tensor stored elsewhere would make a
    # runtime read another file (a path such as ../../etc/passwd), so no runtime is given one.
    external = [t.name for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    if external:
        raise ValueError(
            f"{path}: External data: tensor {external[0]!r:.60} is stored outside the file; popucom "
            "models keep their weights inside (export it again with `popucom export`)"
        )
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
    check_output_names(str(metadata.get("outputs", "")).split(","), str(path))


def output_names(metadata: dict[str, str]) -> tuple[str, ...]:
    """The outputs of a model whose metadata check_metadata accepted, in order."""
    return tuple(metadata["outputs"].split(","))
