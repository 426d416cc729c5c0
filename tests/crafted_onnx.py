"""ONNX models that hide a tensor stored outside the file (ONNX external data) in every place a
tensor can sit, each otherwise a good model: what every model loader must refuse before a
runtime reads the file it names (tests/infer for the Python loaders, tests/web for the page's)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

POLICY = "policy_logits"


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
