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
    if program is None:
        raise RuntimeError("torch.onnx.export returned no program")
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
    expand_softplus(model.graph)
    onnx.checker.check_model(model)
    return write_bytes_atomic(path, model.SerializeToString())


# Below it exp stays finite; above it log(1 + exp(x)) rounds to x in float32, and torch's
# Softplus returns x from the same threshold.
SOFTPLUS_THRESHOLD = 20.0


def expand_softplus(graph) -> None:
    """Writes each Softplus of `graph` as Max(x, Log(Exp(Min(x, SOFTPLUS_THRESHOLD)) + 1)): the
    same function in float32 to an ulp, which onnxruntime and onnxruntime-web run faster than
    their Softplus operator (docs/benchmarks.md) and OpenVINO as fast. The Min keeps exp finite;
    above the threshold the Max returns x. Exported graphs compute in float32, as its constants do.
    Done at write time, so that templates written before it come out in this form too."""
    nodes = []
    for node in graph.node:
        if node.op_type == "Softplus" and node.domain in ("", "ai.onnx"):
            nodes += _softplus_nodes(node.input[0], node.output[0], node.name or node.output[0])
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)


def _softplus_nodes(x: str, y: str, name: str) -> list:
    """The nodes of expand_softplus's form from value x to value y; their names start with `name`."""
    import numpy as np
    from onnx import helper, numpy_helper

    def value(step: str) -> str:
        return f"{y}_softplus_{step}"

    def constant(step: str, number: float):
        tensor = numpy_helper.from_array(np.array(number, dtype=np.float32), value(step))
        return helper.make_node("Constant", [], [value(step)], name=f"{name}_{step}", value=tensor)

    return [
        constant("threshold", SOFTPLUS_THRESHOLD),
        constant("one", 1.0),
        helper.make_node("Min", [x, value("threshold")], [value("min")], name=f"{name}_min"),
        helper.make_node("Exp", [value("min")], [value("exp")], name=f"{name}_exp"),
        helper.make_node("Add", [value("exp"), value("one")], [value("add")], name=f"{name}_add"),
        helper.make_node("Log", [value("add")], [value("log")], name=f"{name}_log"),
        helper.make_node("Max", [x, value("log")], [y], name=f"{name}_max"),
    ]


def read_metadata(path: str | Path) -> dict[str, str]:
    import onnx

    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError and friends for corrupt files
        raise ValueError(f"{path} is not a readable ONNX model ({type(e).__name__}: {e})") from e
    external = external_tensor(model)
    if external is not None:
        raise ValueError(
            f"{path}: External data: tensor {external!r:.60} is stored outside the file; popucom "
            "models keep their weights inside (export it again with `popucom export`)"
        )
    return {p.key: p.value for p in model.metadata_props}


def external_tensor(model) -> str | None:
    """The name of a tensor anywhere in `model` (an onnx.ModelProto) that points outside the file,
    or None. Exported models keep every tensor inside; one stored elsewhere would make a runtime
    read another file (a path such as ../../etc/passwd, resolved against the model's folder by ONNX
    Runtime and against the working directory by OpenVINO), and its bytes would steer play.
    Tensors hide in initializers, Constant nodes and other attributes (one tensor or a list),
    sparse tensors, subgraphs of If/Loop/Scan nested to any depth, and local functions, so every
    message of the model is visited rather than a list of known places; a tensor with
    `external_data` entries counts even when its `data_location` says it is inside."""
    import onnx
    from google.protobuf.message import Message

    stack = [model]
    while stack:
        message = stack.pop()
        if isinstance(message, onnx.TensorProto) and (
            message.data_location != onnx.TensorProto.DEFAULT or len(message.external_data) > 0
        ):
            return message.name or "(unnamed)"
        for field, value in message.ListFields():
            if field.type != field.TYPE_MESSAGE:
                continue
            if field.message_type.GetOptions().map_entry:
                if field.message_type.fields_by_name["value"].type == field.TYPE_MESSAGE:
                    stack.extend(value.values())
            elif isinstance(value, Message):  # one message, else a repeated field
                stack.append(value)
            else:
                stack.extend(value)
    return None


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
