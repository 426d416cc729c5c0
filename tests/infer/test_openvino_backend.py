"""The openvino backend (popucom/infer/openvino_backend.py): parity with the torch network, the
refusals every exported-model runtime shares, its settings and its description. Skipped where
openvino is not installed (the factory's choice without it: tests/infer/test_backend_choice.py)."""

import threading

import numpy as np
import pytest
import torch

pytest.importorskip("openvino")

from popucom.infer import load_evaluator  # noqa: E402
from popucom.infer.openvino_backend import OpenVinoEvaluator, compile_settings  # noqa: E402
from popucom.infer.parity import output_difference  # noqa: E402
from popucom.nn import PopucomNet, preset  # noqa: E402
from popucom.nn.export import export_onnx  # noqa: E402


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(0)
    net = PopucomNet(preset("tiny", attn_res=True)).eval()
    return net, export_onnx(net, tmp_path_factory.mktemp("openvino") / "tiny.onnx")


@pytest.mark.parametrize("overrides", [{}, {"mhc": True}, {"attn_res": False}])
def test_outputs_match_the_torch_network_at_batch_1_and_64(tmp_path, overrides) -> None:
    torch.manual_seed(1)
    net = PopucomNet(preset("tiny", **overrides)).eval()
    evaluator = OpenVinoEvaluator(export_onnx(net, tmp_path / "m.onnx"), threads=1)
    assert output_difference(net, evaluator.run_all, batch=1) < 1e-4
    assert output_difference(net, evaluator.run_all, batch=64, seed=3) < 1e-4  # one model, any batch


def test_two_threads_and_two_calling_threads_give_the_same_outputs(exported) -> None:
    net, path = exported
    evaluator = OpenVinoEvaluator(path, threads=2)
    from popucom.data.positions import random_features

    x = random_features(24, seed=5, komi_range=5)
    expected = evaluator.run_all(x)
    got = {}
    workers = [threading.Thread(target=lambda i=i: got.__setitem__(i, evaluator.run_all(x))) for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for outputs in got.values():  # each calling thread has an infer request of its own
        for name, array in expected.items():
            np.testing.assert_allclose(outputs[name], array, atol=1e-6)
    out = evaluator(x)
    assert out.policy_logits.shape == (24, 81) and out.wdl.shape == (24, 3) and out.score.shape == (24,)


def test_the_refusals_of_every_exported_model_runtime(exported, bad_exported_models) -> None:
    _, path = exported
    for bad, error, message in bad_exported_models(path):
        with pytest.raises(error, match=message):
            OpenVinoEvaluator(bad)


def test_settings_fp32_the_budget_one_stream_and_no_pinning(exported) -> None:
    _, path = exported
    settings = compile_settings(2)
    assert settings["INFERENCE_PRECISION_HINT"] == "f32" and settings["ENABLE_CPU_PINNING"] is False
    evaluator = OpenVinoEvaluator(path, threads=2)
    compiled = evaluator.compiled
    assert compiled.get_property("INFERENCE_NUM_THREADS") == 2 and compiled.get_property("NUM_STREAMS") == 1
    assert compiled.get_property("ENABLE_CPU_PINNING") is False
    assert str(compiled.get_property("INFERENCE_PRECISION_HINT")) in ("<Type: 'float32'>", "f32", "float32")
    assert evaluator.describe().startswith("openvino ") and "cpu (fp32, 2 threads, 1 stream)" in evaluator.describe()
    assert "tiny.onnx [tiny]" in evaluator.describe()


def test_the_factory_names_it_and_refuses_what_it_cannot_run(exported, tmp_path) -> None:
    net, path = exported
    assert isinstance(load_evaluator(path, backend="openvino"), OpenVinoEvaluator)
    from popucom.train import Trainer

    checkpoint = Trainer(preset("tiny")).save(tmp_path / "tiny.pt")
    with pytest.raises(ValueError, match="the openvino backend runs exported models"):
        load_evaluator(checkpoint, backend="openvino")
    with pytest.raises(ValueError, match="the openvino backend runs on the CPU"):
        load_evaluator(path, backend="openvino", device="cuda")
