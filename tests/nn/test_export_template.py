"""Exports that reuse a traced graph (nn/export.py templates, pipeline/stages.export_iteration)."""

import logging

import numpy as np
import pytest
import torch

from popucom.data.positions import random_features
from popucom.infer.onnx_backend import OnnxEvaluator
from popucom.infer.parity import max_abs_difference
from popucom.nn import PopucomNet, preset
from popucom.nn.export import expand_softplus, export_from_template, export_onnx, read_metadata, template_key


def tiny_net(seed: int, **overrides: object) -> PopucomNet:
    torch.manual_seed(seed)
    net = PopucomNet(preset("tiny", **overrides))
    with torch.no_grad():  # away from the initialisation: every parameter matters
        for p in net.parameters():
            p.add_(0.2 * torch.randn_like(p))
    return net.eval()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    path = folder / "template.onnx"
    export_onnx(tiny_net(1), folder / "first.onnx", template=path)
    return path


def test_weights_swapped_into_the_template_give_the_networks_outputs(template, tmp_path) -> None:
    net = tiny_net(2)
    fresh = export_onnx(net, tmp_path / "fresh.onnx")
    swapped = export_from_template(net, tmp_path / "swapped.onnx", template, {"iteration": "7"})
    assert read_metadata(swapped)["iteration"] == "7" and read_metadata(swapped)["preset"] == "tiny"
    assert max_abs_difference(net, swapped, batch=8) < 1e-4
    features = random_features(8, seed=3, komi_range=5)
    a, b = OnnxEvaluator(fresh, threads=1).run_all(features), OnnxEvaluator(swapped, threads=1).run_all(features)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], atol=1e-4)
    assert template_key(net) == template_key(tiny_net(1)) != template_key(tiny_net(1, layers=3))


def test_softplus_is_exported_in_the_faster_form_exact_over_the_float_range(template, tmp_path) -> None:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    # The template keeps the traced graph; the written model has each Softplus expanded.
    traced = [n.op_type for n in onnx.load(str(template)).graph.node]
    written = [n.op_type for n in onnx.load(str(template.parent / "first.onnx")).graph.node]
    assert traced.count("Softplus") > 0 and "Softplus" not in written
    for op in ("Min", "Exp", "Log", "Max"):
        assert written.count(op) - traced.count(op) == traced.count("Softplus"), op

    # Each runtime's result on the expanded form is torch's softplus, as close as its own Softplus
    # operator comes (OpenVINO's is off by a few ulp of 1 at large negative x).
    big = float(np.finfo(np.float32).max)
    x = np.array([-big, -1e30, -100, -87, -20, -1, 0, 1e-8, 1, 19.9, 20, 20.5, 50, 88, 89, 100, 1e30, big], np.float32)
    expected = torch.nn.functional.softplus(torch.from_numpy(x)).numpy()
    graph = helper.make_graph(
        [helper.make_node("Softplus", ["x"], ["y"])],
        "softplus",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
    )
    plain = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    expanded = onnx.ModelProto()
    expanded.CopyFrom(plain)
    expand_softplus(expanded.graph)
    assert [n.op_type for n in expanded.graph.node if n.op_type != "Constant"] == ["Min", "Exp", "Add", "Log", "Max"]

    def onnxruntime_run(path: str) -> np.ndarray:
        return ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]

    runtimes = {"onnxruntime": onnxruntime_run}
    try:
        import openvino
    except ImportError:
        pass
    else:
        from popucom.infer.openvino_backend import compile_settings

        compile_model = openvino.Core().compile_model
        runtimes["openvino"] = lambda path: np.asarray(compile_model(path, "CPU", compile_settings(1))({"x": x})[0])
    for runtime, run in runtimes.items():
        results = []
        for form, model in (("plain", plain), ("expanded", expanded)):
            onnx.save(model, str(tmp_path / f"{form}.onnx"))
            results.append(run(str(tmp_path / f"{form}.onnx")))
        own_error = float(np.abs(results[0] - expected).max())
        np.testing.assert_allclose(results[1], expected, rtol=1e-6, atol=max(1e-6, own_error), err_msg=runtime)


def test_a_template_that_does_not_fit_is_refused(template, tmp_path) -> None:
    with pytest.raises(ValueError, match="initializer .* the network lacks"):
        export_from_template(tiny_net(1, d_model=48), tmp_path / "x.onnx", template)
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not onnx")
    with pytest.raises(ValueError, match="unreadable"):
        export_from_template(tiny_net(1), tmp_path / "x.onnx", broken)
    assert not (tmp_path / "x.onnx").exists()


def test_the_pipeline_exports_through_the_template_and_falls_back(tmp_path, caplog) -> None:
    from popucom.pipeline.config import pipeline_preset
    from popucom.pipeline.run_dir import RunDir
    from popucom.pipeline.stages import export_iteration
    from popucom.train.trainer import Trainer

    config = pipeline_preset("tiny")
    run = RunDir(tmp_path)
    for k in (0, 1, 2):
        trainer = Trainer(config.model, config.train, model=tiny_net(k + 10))
        trainer.save(run.checkpoint(k))
    export_iteration(config, run, 0)
    (template,) = (tmp_path / "models").glob(".template-*.onnx")
    first = template.read_bytes()
    export_iteration(config, run, 1)  # through the template: it stays as it was
    assert template.read_bytes() == first
    template.write_bytes(b"garbage")
    with caplog.at_level(logging.WARNING):
        export_iteration(config, run, 2)
    assert "exporting afresh" in caplog.text and template.read_bytes() != b"garbage"
    from popucom.train.trainer import load_network_with_checkpoint

    for k in (0, 1, 2):
        net, _ = load_network_with_checkpoint(run.checkpoint(k))
        assert max_abs_difference(net, run.model(k), batch=4) < 1e-4
