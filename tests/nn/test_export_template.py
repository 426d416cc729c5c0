"""Exports that reuse a traced graph (nn/export.py templates, pipeline/stages.export_iteration)."""

import logging

import numpy as np
import pytest
import torch

from popucom.data.positions import random_features
from popucom.infer.onnx_backend import OnnxEvaluator
from popucom.infer.parity import max_abs_difference
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_from_template, export_onnx, read_metadata, template_key


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
