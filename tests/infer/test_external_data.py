"""A model file reads nothing but itself: a tensor stored outside the file, wherever it sits in the
graph, is refused by the shared check (popucom.nn.export.read_metadata) before any runtime sees
the file, through every loader, run from a working directory that holds the file it names."""

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper

from popucom.infer import load_evaluator
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx, external_tensor, read_metadata

POLICY = "policy_logits"


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    torch.manual_seed(0)
    return export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path_factory.mktemp("external") / "good.onnx")


def external(name: str, location: str = "secret.bin", *, flagged: bool = True) -> TensorProto:
    """81 float32 values that a runtime would read from `location` (the policy's shape)."""
    tensor = helper.make_tensor(name, TensorProto.FLOAT, [81], np.zeros(81, np.float32).tobytes(), raw=True)
    tensor.ClearField("raw_data")
    if flagged:
        tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "324")):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return tensor


def steer_policy(model: onnx.ModelProto, *nodes: onnx.NodeProto) -> None:
    """Adds "steer" (made by `nodes`, or an initializer) to the policy, as a crafted model would."""
    for producer in model.graph.node:
        producer.output[:] = ["policy_raw" if name == POLICY else name for name in producer.output]
    model.graph.node.extend([*nodes, helper.make_node("Add", ["policy_raw", "steer"], [POLICY])])


def constant(tensor: TensorProto, output: str = "steer") -> onnx.NodeProto:
    return helper.make_node("Constant", [], [output], value=tensor)


def subgraph(nodes: list, initializers: list = ()) -> onnx.GraphProto:
    out = helper.make_tensor_value_info("steer", TensorProto.FLOAT, [81])
    return helper.make_graph(nodes, "branch", [], [out], initializer=list(initializers))


def crafted(good) -> dict[str, onnx.ModelProto]:
    """One model per place a tensor can hide, each otherwise the good model."""
    models = {}

    def start() -> onnx.ModelProto:
        return onnx.load(str(good))

    m = start()
    weights = max(m.graph.initializer, key=lambda t: len(t.raw_data))
    weights.data_location = TensorProto.EXTERNAL
    weights.external_data.add().key = "location"
    weights.external_data[0].value = "secret.bin"
    models["initializer"] = m

    m = start()
    steer_policy(m, constant(external("in_constant")))
    models["constant node"] = m

    m = start()
    steer_policy(m, constant(external("unflagged", flagged=False)))
    models["external_data entries without data_location"] = m

    m = start()
    steer_policy(m, constant(external("absolute", location="/etc/passwd")))
    models["absolute path"] = m

    m = start()
    sparse = helper.make_sparse_tensor(
        external("sparse_values"), helper.make_tensor("i", TensorProto.INT64, [81], list(range(81))), [81]
    )
    steer_policy(m, helper.make_node("Constant", [], ["steer"], sparse_value=sparse))
    models["sparse constant"] = m

    m = start()
    m.graph.sparse_initializer.append(
        helper.make_sparse_tensor(
            external("steer"), helper.make_tensor("j", TensorProto.INT64, [81], list(range(81))), [81]
        )
    )
    steer_policy(m)
    models["sparse initializer"] = m

    m = start()
    node = constant(helper.make_tensor("inside", TensorProto.FLOAT, [81], np.zeros(81, np.float32)))
    node.attribute.append(helper.make_attribute("extra", [external("in_list")]))
    steer_policy(m, node)
    models["attribute list of tensors"] = m

    m = start()
    cond = constant(helper.make_tensor("c", TensorProto.BOOL, [], [True]), "cond")
    branch = subgraph([constant(external("in_then"))])
    steer_policy(m, cond, helper.make_node("If", ["cond"], ["steer"], then_branch=branch, else_branch=branch))
    models["If branch"] = m

    m = start()
    inner = subgraph([helper.make_node("Identity", ["deep"], ["steer"])], [external("deep")])
    outer = subgraph([cond, helper.make_node("If", ["cond"], ["steer"], then_branch=inner, else_branch=inner)])
    steer_policy(m, cond, helper.make_node("If", ["cond"], ["steer"], then_branch=outer, else_branch=outer))
    models["initializer of an If nested in an If"] = m

    m = start()
    graphs = helper.make_attribute("bodies", [subgraph([constant(external("in_graphs"))])])
    node = constant(helper.make_tensor("fine", TensorProto.FLOAT, [81], np.zeros(81, np.float32)))
    node.attribute.append(graphs)
    steer_policy(m, node)
    models["graphs attribute"] = m

    m = start()
    function = helper.make_function(
        "custom", "Steer", [], ["steer"], [constant(external("in_function"))], m.opset_import
    )
    m.functions.append(function)
    steer_policy(m, helper.make_node("Steer", [], ["steer"], domain="custom"))
    m.opset_import.append(helper.make_opsetid("custom", 1))
    models["local function"] = m
    return models


@pytest.fixture
def elsewhere(tmp_path, monkeypatch, good):
    """A working directory and a model folder that both hold the file the crafted tensors name
    (OpenVINO resolves a location against the first, ONNX Runtime against the second)."""
    folder = tmp_path / "models"
    folder.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    secret = np.full(81, -50.0, np.float32)
    secret[40] = 50.0
    for place in (folder, cwd):
        (place / "secret.bin").write_bytes(secret.tobytes())
    monkeypatch.chdir(cwd)
    paths = {}
    for i, (placement, model) in enumerate(crafted(good).items()):
        path = folder / f"crafted{i}.onnx"
        path.write_bytes(model.SerializeToString())
        paths[placement] = path
    return paths


def test_the_good_model_has_no_external_tensor(good) -> None:
    assert external_tensor(onnx.load(str(good))) is None
    assert read_metadata(good)["popucom_format"] == "popucom-onnx"


def test_every_placement_is_refused_by_every_loader(elsewhere) -> None:
    backends = ["onnx"]
    try:
        import openvino  # noqa: F401

        backends.append("openvino")
    except ImportError:
        pass
    for placement, path in elsewhere.items():
        with pytest.raises(ValueError, match=f"{path.name}: External data: tensor"):
            read_metadata(path)
        for backend in backends:
            with pytest.raises(ValueError, match=f"{path.name}: External data"):
                load_evaluator(path, backend=backend)
        assert placement  # named in the failure's traceback
