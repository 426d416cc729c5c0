"""The value-error head end to end: self-play writes short-term value targets, the loss trains
the head on the value head's squared error, a network gains the head without changing its other
outputs, and every backend hands the search the head's output (or None without the head)."""

from pathlib import Path

import numpy as np
import pytest
import torch

from popucom.data import read_shard
from popucom.data.positions import random_features
from popucom.infer import TinyEvaluator
from popucom.infer.contract import EvalOutput, check_outputs
from popucom.infer.onnx_backend import OnnxEvaluator
from popucom.infer.torch_backend import TorchEvaluator
from popucom.nn import PopucomNet, preset
from popucom.nn.checkpoint import load_network
from popucom.nn.export import export_onnx
from popucom.nn.model import ExportWrapper
from popucom.nn.new_head import head_parameters, with_value_error_head
from popucom.selfplay import KomiSampler, SelfPlayConfig, run_selfplay
from popucom.train import ReplayWindow, Trainer
from popucom.train.losses import losses, value_squared_error
from popucom.train.trainer import batch_tensors
from popucom.train.window import Batch

WEIGHTS = Path(__file__).resolve().parents[2] / "weights"


@pytest.fixture(scope="module")
def selfplay_shards(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("selfplay")
    config = SelfPlayConfig(concurrent_games=8, full_visits=16, fast_visits=4, full_search_prob=0.5, max_random_plies=2)
    run_selfplay(TinyEvaluator(), config, out, "v", 10, KomiSampler(), progress=False)
    return out


def test_selfplay_writes_short_term_values_between_search_and_result(selfplay_shards) -> None:
    arrays = {k: np.asarray(v) for k, v in read_shard(next(selfplay_shards.glob("*.pcs"))).arrays.items()}
    short_term, outcome = arrays["short_term_value"], arrays["outcome"].astype(np.float32)
    assert len(short_term) > 50 and np.all(np.abs(short_term) <= 1)
    # Early positions lean on the searches, not the result; they agree in sign more often than not.
    assert np.mean(np.abs(short_term - outcome) > 0.05) > 0.5
    assert np.mean(np.sign(short_term) == np.sign(outcome)) > 0.5


def test_the_loss_trains_the_head_on_the_value_heads_squared_error(selfplay_shards) -> None:
    torch.manual_seed(0)
    net = PopucomNet(preset("tiny"))
    batch = batch_tensors(
        ReplayWindow(selfplay_shards, 10**6).sample(np.random.default_rng(0), 64), torch.device("cpu")
    )
    out = net(batch["features"])
    target = value_squared_error(out, batch)
    wdl = torch.softmax(out["wdl_logits"].detach(), -1)
    torch.testing.assert_close(target, (batch["short_term_value"] - wdl[:, 0] + wdl[:, 2]) ** 2)
    terms = losses(out, batch, net.config)
    assert "value_error" in terms and terms["value_error"] > 0
    terms["value_error"].backward()  # the target is held fixed: no gradient reaches the value head
    assert all(p.grad is None or not p.grad.any() for p in net.value_head.parameters())
    assert any(p.grad is not None and p.grad.any() for p in net.value_error_head.parameters())
    plain = PopucomNet(preset("tiny", value_error_head=False))
    assert "value_error" not in losses(plain(batch["features"]), batch, plain.config)


def test_a_trainer_fits_the_head_and_its_checkpoint_loads(selfplay_shards, tmp_path) -> None:
    trainer = Trainer(preset("tiny"))
    window = ReplayWindow(selfplay_shards, 10**6)
    first = trainer.train_step(window.sample(trainer.rng, 32))
    assert "loss/value_error" in first
    path = trainer.save(tmp_path / "net.pt")
    assert load_network(path).value_error_head is not None
    assert Trainer(preset("tiny")).train_step(Batch.random(16))["loss/value_error"] >= 0


def test_a_network_gains_the_head_without_changing_its_other_outputs() -> None:
    source = load_network(WEIGHTS / "popucom-small-v1.pt")
    assert source.value_error_head is None
    grown = with_value_error_head(source)
    x = torch.from_numpy(random_features(8, seed=3, komi_range=5))
    with torch.no_grad():
        before, after = source(x), grown(x)
    for name, value in before.items():
        torch.testing.assert_close(after[name], value, rtol=0, atol=0)
    assert (after["value_error"] >= 0).all()
    assert len(head_parameters(grown)) == 4
    with pytest.raises(ValueError, match="no value-error head"):
        head_parameters(source)


def test_the_exported_head_reaches_the_search_through_every_backend(tmp_path) -> None:
    torch.manual_seed(1)
    net = PopucomNet(preset("tiny")).eval()
    path = export_onnx(net, tmp_path / "u.onnx")
    x = random_features(6, seed=2, komi_range=5)
    with torch.no_grad():
        want = ExportWrapper(net)(torch.from_numpy(x))[-1].numpy()
    for evaluator in (OnnxEvaluator(path), TorchEvaluator(net, threads=1)):
        out = evaluator(x)
        np.testing.assert_allclose(out.value_error, want, atol=1e-5)
        assert check_outputs(out, 6).value_error.shape == (6,)


def test_check_outputs_takes_no_value_error_and_refuses_a_bad_one() -> None:
    good = EvalOutput(np.zeros((2, 81), np.float32), np.full((2, 3), 1 / 3, np.float32), np.zeros(2, np.float32))
    assert check_outputs(good, 2).value_error is None
    assert check_outputs(tuple(good)[:3], 2).value_error is None
    with pytest.raises(ValueError, match="value_error is negative in row 1"):
        check_outputs(good._replace(value_error=np.array([0.1, -0.2], np.float32)), 2)
    with pytest.raises(ValueError, match="value_error is not finite"):
        check_outputs(good._replace(value_error=np.array([np.nan, 0.2], np.float32)), 2)
    with pytest.raises(ValueError, match=r"value_error has shape \(3,\)"):
        check_outputs(good._replace(value_error=np.zeros(3, np.float32)), 2)


def test_the_head_fitting_experiment_writes_a_network_a_run_can_continue(tmp_path, capsys) -> None:
    import json

    from popucom.experiments import value_error_head
    from popucom.pipeline.resume_from import check_shipped
    from popucom.weights import read_sidecar

    source = WEIGHTS / "popucom-small-v1.pt"
    value_error_head.main([str(source), str(tmp_path), "--games", "16", "--steps", "4", "--threads", "1"])
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["experiment"] == "value_error_head" and line["train_rows"] > 0 and len(line["loss_trace"]) >= 2
    assert line["held_out"]["validation_rows"] > 0 and line["held_out"]["constant_loss"] >= 0
    fitted = tmp_path / "popucom-small-v1-u.pt"
    check_shipped(read_sidecar(fitted), fitted)  # loads as the network its sidecar describes
    net, source_net = load_network(fitted), load_network(source)
    assert net.value_error_head is not None
    x = torch.from_numpy(random_features(4, seed=9, komi_range=5))
    with torch.no_grad():
        torch.testing.assert_close(net(x)["wdl_logits"], source_net(x)["wdl_logits"], rtol=0, atol=0)
    assert OnnxEvaluator(tmp_path / "popucom-small-v1-u.onnx")(x.numpy()).value_error.shape == (4,)
