"""Shards, the replay window, the trainer, checkpoints and ONNX export."""

from dataclasses import replace

import numpy as np
import pytest
import torch

import popucom
from popucom.data import ShardError, read_shard, write_shard
from popucom.data.shards import FIELDS
from popucom.infer import precision
from popucom.infer.parity import max_abs_difference
from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx
from popucom.train import ReplayWindow, TrainConfig, Trainer, load_checkpoint
from popucom.train import trainer as trainer_module
from popucom.train.losses import TARGET_FIELDS
from popucom.train.window import SOURCE


def test_shard_round_trip(bot_shards, tmp_path) -> None:
    shard = read_shard(sorted(bot_shards.glob("*.pcs"))[0])
    assert shard.header["num_games"] == 20 and len(shard) > 20 * 40
    arrays = {name: np.asarray(shard.arrays[name]) for name in FIELDS}
    path = write_shard(tmp_path / "copy.pcs", arrays, meta={"note": "copy"})
    again = read_shard(path)
    for name in FIELDS:
        np.testing.assert_array_equal(np.asarray(again.arrays[name]), arrays[name])
    assert again.header["meta"]["note"] == "copy"
    # Targets are consistent with the positions: outcome and score signs agree per mover.
    assert set(np.unique(arrays["outcome"])) <= {-1, 0, 1}
    assert np.allclose(arrays["policy"].astype(np.float32).sum(1), 1, atol=1e-2)
    positions = [popucom.Position.unpack(s) for s in arrays["state"][:50]]
    assert all(not p.is_over for p in positions)


def test_bad_shards_are_refused(bot_shards, tmp_path) -> None:
    good = sorted(bot_shards.glob("*.pcs"))[0]
    truncated = tmp_path / "truncated.pcs"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ShardError, match="truncated"):
        read_shard(truncated)
    garbage = tmp_path / "garbage.pcs"
    garbage.write_bytes(b"hello world, not a shard")
    with pytest.raises(ShardError, match="not a popucom shard"):
        read_shard(garbage)
    bad_header = tmp_path / "bad_header.pcs"
    bad_header.write_bytes(b"PCSHARD1" + (20).to_bytes(4, "little") + b"{not json" + b" " * 11)
    with pytest.raises(ShardError, match="corrupt shard header"):
        read_shard(bad_header)
    with pytest.raises(ShardError, match="cannot read"):
        read_shard(tmp_path / "missing.pcs")
    with pytest.raises(ValueError, match="missing"):
        write_shard(tmp_path / "x.pcs", {"state": np.zeros((1, 9), np.uint64)})
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(ShardError, match="no training data"):
        ReplayWindow(empty_dir, 1000)


def test_window_split_and_symmetry(bot_shards) -> None:
    window = ReplayWindow(bot_shards, 100_000)
    games = {int(g) for s in window.shards for g in np.asarray(s.arrays["game_id"])}
    val_games = {int(window.shards[k].arrays["game_id"][r]) for k, r in window.val_rows}
    assert 0 < len(val_games) < len(games) / 3  # about a tenth of the games held out, by game
    rng = np.random.default_rng(0)
    batch = window.sample(rng, 200)
    legal = batch.features[:, [n for n, _ in popucom.FEATURE_PLANES].index("legal_moves")].reshape(200, 81)
    assert float((batch.policy * (1 - legal)).sum()) == 0  # targets moved with the board
    # One sample checked by hand against the position transformed directly.
    k, r = window.train_rows[0]
    position = popucom.Position.unpack(np.asarray(window.shards[k].arrays["state"][r]))
    policy = np.asarray(window.shards[k].arrays["policy"][r], np.float32)
    for s in range(8):
        transformed = window._gather(window.train_rows[:1], np.array([s]))
        np.testing.assert_array_equal(transformed.features[0], popucom.encode_position(position.transformed(s)))
        moved = np.zeros(81, np.float32)
        for sq in range(81):
            moved[popucom.transform_square(s, sq)] = policy[sq]
        np.testing.assert_array_equal(transformed.policy[0], moved)
        np.testing.assert_array_equal(transformed.policy[0], policy[SOURCE[s]])


def test_training_reduces_the_loss(bot_shards, tmp_path) -> None:
    window = ReplayWindow(bot_shards, 100_000)
    trainer = Trainer(
        preset("tiny"), TrainConfig(batch_size=64, lr=3e-3, warmup_steps=5, seed=3), log_dir=tmp_path / "tb"
    )
    val = window.validation_batches(256)
    before = trainer.evaluate(val)
    metrics = trainer.train(window, 60, progress=False, log_every=20, val_batches=val)
    assert metrics["val/loss/total"] < before["loss/total"] - 0.05
    assert metrics["val/loss/policy"] < before["loss/policy"]
    assert 0 < metrics["update_rms/muon"] and metrics["max_attention_logit"] > 0
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))  # TensorBoard scalars written
    assert isinstance(trainer.muon, torch.optim.Muon)
    assert trainer.muon.param_groups[0]["adjust_lr_fn"] == "match_rms_adamw"


def test_resume_continues_exactly(bot_shards, tmp_path) -> None:
    window = ReplayWindow(bot_shards, 100_000)
    config = TrainConfig(batch_size=32, warmup_steps=3, seed=5)
    straight = Trainer(preset("tiny"), config)
    straight.train(window, 8, progress=False)
    first = Trainer(preset("tiny"), config)
    first.train(window, 4, progress=False)
    first.save(tmp_path / "ckpt.pt")
    resumed = Trainer.resume(tmp_path / "ckpt.pt", model_config=preset("tiny"))
    assert resumed.step == 4
    resumed.train(window, 4, progress=False)
    for a, b in zip(straight.model.state_dict().values(), resumed.model.state_dict().values()):
        assert torch.equal(a, b)


@pytest.mark.slow  # the first compile on a machine takes one to four minutes on two cores
def test_a_compiled_training_step_matches_the_eager_one(bot_shards) -> None:
    """TrainConfig.compile runs the same maths through torch.compile: from the same weights
    and batch, the same loss and gradients. (The weights after the step are compared only
    through the next loss: Adam's first steps turn a tiny gradient's rounding into a whole
    learning-rate step.)"""
    batch = ReplayWindow(bot_shards, 100_000).sample(np.random.default_rng(0), 32)
    config = TrainConfig(batch_size=32, warmup_steps=3, seed=5)
    eager = Trainer(preset("tiny"), config)
    compiled = Trainer(preset("tiny"), replace(config, compile=True))
    want, got = eager.train_step(batch), compiled.train_step(batch)
    assert compiled.train_forward is not compiled.model  # compiled, no fallback to eager
    assert got["loss/total"] == pytest.approx(want["loss/total"], rel=1e-5)
    for (name, a), b in zip(eager.model.named_parameters(), compiled.model.parameters()):
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-3, atol=1e-5, msg=lambda m, name=name: f"{name}: {m}")
    assert compiled.train_step(batch)["loss/total"] == pytest.approx(eager.train_step(batch)["loss/total"], rel=1e-3)


def test_cpu_bf16_training_autocasts_where_the_cpu_has_bf16_and_falls_back_elsewhere(
    bot_shards, monkeypatch, caplog
) -> None:
    batch = ReplayWindow(bot_shards, 100_000).sample(np.random.default_rng(0), 16)
    config = TrainConfig(batch_size=16, warmup_steps=3, seed=5)
    assert Trainer(preset("tiny"), config).autocast_dtype is None  # off by default
    monkeypatch.setattr(trainer_module, "cpu_has_bf16", lambda: True)
    narrow, wide = Trainer(preset("tiny"), replace(config, cpu_bf16=True)), Trainer(preset("tiny"), config)
    assert narrow.autocast_dtype == torch.bfloat16
    if precision.cpu_has_bf16():  # the step itself only where bf16 runs at its speed
        wide.model.load_state_dict(narrow.model.state_dict())
        got, want = narrow.train_step(batch), wide.train_step(batch)
        # bf16 products: the same loss to about 1%, not the same bits
        assert got["loss/total"] != want["loss/total"]
        assert got["loss/total"] == pytest.approx(want["loss/total"], rel=0.02)
    monkeypatch.setattr(trainer_module, "cpu_has_bf16", lambda: False)
    assert Trainer(preset("tiny"), replace(config, cpu_bf16=True)).autocast_dtype is None
    assert "train.cpu_bf16: this CPU has no bf16 arithmetic; training in fp32" in caplog.text


def test_a_failing_compiler_leaves_training_eager(bot_shards, caplog) -> None:
    batch = ReplayWindow(bot_shards, 100_000).sample(np.random.default_rng(0), 16)
    trainer = Trainer(preset("tiny"), TrainConfig(batch_size=16, compile=True))

    def broken_compiler(features):
        raise RuntimeError("no C++ compiler on this machine")

    trainer.train_forward = broken_compiler
    metrics = trainer.train_step(batch)
    assert np.isfinite(metrics["loss/total"]) and trainer.step == 1
    assert trainer.train_forward is trainer.model
    assert "torch.compile failed (RuntimeError: no C++ compiler" in caplog.text


def test_the_training_eta_leaves_out_the_one_off_compile(bot_shards, monkeypatch) -> None:
    """The compiling step gets a bar of its own; the bar after it starts at the steps done, so
    its rate and ETA are the compiled steps' (a minute's compile made the first ETA hours)."""
    import tqdm

    trainer = Trainer(preset("tiny"), TrainConfig(batch_size=16, compile=True))
    trainer.train_forward = lambda features: trainer.model(features)  # stands in for the compiled module
    bars = []
    init = tqdm.tqdm.__init__

    made = []

    def spy(bar, *args, **kwargs):
        init(bar, *args, **kwargs)
        bars.append((bar.desc, bar.n))
        made.append(bar)

    monkeypatch.setattr(tqdm.tqdm, "__init__", spy)
    trainer.train(ReplayWindow(bot_shards, 100_000), 5, progress=True, log_every=1000)
    # Step 0 is a measured (eager) step, step 1 compiles; the fresh bar starts after it.
    assert bars == [("train (compiling the step, once)", 0), ("train", 2)]
    # The compiling bar, as left on the screen, shows no rate or ETA (one over the compile said
    # 17 hours); the bar after it shows both.
    compiling, steady = str(made[0]), str(made[1])
    assert "step/s" not in compiling and "<" not in compiling and "ETA once compiled" in compiling
    assert "2/5" in compiling and "step/s" in steady and "<" in steady
    assert trainer.compiled_steps == 3  # the first and the last step are measured, eagerly
    bars.clear()
    trainer.train(ReplayWindow(bot_shards, 100_000), 3, progress=True, log_every=1000)
    assert bars == [("train", 0)]  # compiled already: one bar


def test_checkpoints_refuse_mismatches(tmp_path) -> None:
    trainer = Trainer(preset("tiny"), TrainConfig())
    path = trainer.save(tmp_path / "tiny.pt")
    with pytest.raises(ValueError, match=r"different model:\n.*d_model: checkpoint has 32, requested 64"):
        load_checkpoint(path, expect=preset("small"))
    with pytest.raises(ValueError, match="mhc: checkpoint has False, requested True"):
        load_checkpoint(path, expect=preset("tiny", mhc=True))
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load_checkpoint(truncated)
    not_ours = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, not_ours)
    with pytest.raises(ValueError, match="not a popucom checkpoint"):
        load_checkpoint(not_ours)
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temp files


def test_losses_are_the_written_out_terms() -> None:
    """The loss loop over the heads (popucom/train/losses.py) gives, bit for bit, the terms as
    they were written out one by one before the output spec existed."""
    import torch.nn.functional as F

    from popucom.data.positions import random_features
    from popucom.train.losses import losses

    config = preset("tiny")
    torch.manual_seed(0)
    net = PopucomNet(config)
    g = torch.Generator().manual_seed(1)
    n = 24
    policy = torch.rand(n, 81, generator=g)
    batch = {
        "features": torch.from_numpy(random_features(n, seed=3, komi_range=5)),
        "policy": policy / policy.sum(-1, keepdim=True),
        "outcome": torch.randint(0, 3, (n,), generator=g),
        "short_term_value": torch.rand(n, generator=g) * 2 - 1,
        "score": torch.randn(n, generator=g) * 10,
        "ownership": torch.rand(n, 81, generator=g) * 2 - 1,
        "full_search": (torch.rand(n, generator=g) > 0.3).float(),
    }
    out = net(batch["features"])
    terms = losses(out, batch, config)

    w = config.loss_weights
    full = batch["full_search"]
    denom = full.sum().clamp(min=1.0)
    log_policy = F.log_softmax(out["policy_logits"].float(), dim=-1)
    policy_ce = -(batch["policy"] * log_policy).sum(-1)
    soft_target = batch["policy"].clamp(min=0).pow(0.25)
    soft_target = soft_target / soft_target.sum(-1, keepdim=True).clamp(min=1e-12)
    soft = -(soft_target * F.log_softmax(out["soft_policy_logits"].float(), dim=-1)).sum(-1)
    expected = {
        "policy": (policy_ce * full).sum() / denom,
        "soft_policy": (soft * full).sum() / denom,
        "value": F.cross_entropy(out["wdl_logits"].float(), batch["outcome"]),
        "score": F.huber_loss(out["score"].float(), batch["score"], delta=w.score_huber_delta),
        "ownership": F.mse_loss(out["ownership"].float(), batch["ownership"]),
    }
    wdl = F.softmax(out["wdl_logits"].detach().float(), dim=-1)
    squared_error = (batch["short_term_value"] - (wdl[:, 0] - wdl[:, 2])).square()
    expected["value_error"] = F.huber_loss(out["value_error"], squared_error, delta=w.value_error_huber_delta)
    expected["total"] = (
        w.policy * expected["policy"]
        + w.soft_policy * expected["soft_policy"]
        + w.value * expected["value"]
        + w.score * expected["score"]
        + w.ownership * expected["ownership"]
        + w.value_error * expected["value_error"]
    )
    assert list(terms) == list(expected)
    for key in expected:
        assert torch.equal(terms[key], expected[key]), key
    terms["total"].backward()  # and it trains: every head gets a gradient
    assert all(p.grad is not None for p in net.value_head.parameters())


def test_teacher_targets_blend_the_games_with_the_teachers_predictions(bot_shards) -> None:
    import torch.nn.functional as F

    from popucom.train.losses import losses, teacher_targets

    config = preset("tiny")
    torch.manual_seed(2)
    net = PopucomNet(config)
    batch = next(iter(ReplayWindow(bot_shards, 100_000).validation_batches(32)))
    tensors = {k: torch.from_numpy(np.ascontiguousarray(getattr(batch, k))) for k in ("features", *TARGET_FIELDS)}
    out = net(tensors["features"])
    # Share 0: the games' targets (the class target as its one-hot distribution, the same loss).
    none = losses(out, teacher_targets(tensors, out, 0.0), config)
    plain = losses(out, tensors, config)
    for key in plain:
        torch.testing.assert_close(none[key], plain[key])
    # Share 1 from itself: the distributions are the net's own, so their losses have no gradient.
    taught = teacher_targets(tensors, {k: v.detach() for k, v in out.items()}, 1.0)
    torch.testing.assert_close(taught["outcome"], F.softmax(out["wdl_logits"], -1).detach())
    torch.testing.assert_close(taught["ownership"], out["ownership"].detach())
    terms = losses(out, taught, config)
    logits = [out["policy_logits"], out["wdl_logits"]]
    grads = torch.autograd.grad(terms["policy"] + terms["value"] + terms["ownership"], logits)
    assert all(float(g.abs().max()) < 1e-6 for g in grads)
    with pytest.raises(ValueError, match="teacher share 1.5"):
        teacher_targets(tensors, out, 1.5)


def test_a_taught_network_moves_towards_its_teacher(bot_shards) -> None:
    """Trained on the same batches, a student taught by a network comes out closer to that
    network's policy than one taught by the games alone."""
    import torch.nn.functional as F

    window = ReplayWindow(bot_shards, 100_000)
    # 20 steps of 32 rows: the taught student ends about half as far from its teacher (0.0018 in
    # KL against 0.0035); 40 of 64 show the same at 2.4 times the time.
    teacher_trainer = Trainer(preset("tiny"), TrainConfig(batch_size=32, lr=3e-3, warmup_steps=5, seed=7))
    teacher_trainer.train(window, 20, progress=False)
    teacher = teacher_trainer.model.eval()
    val = window.validation_batches(256)
    x = torch.from_numpy(val[0].features)
    with torch.no_grad():
        target = F.softmax(teacher(x)["policy_logits"], -1)

    def distance_after(share: float) -> float:
        config = TrainConfig(batch_size=32, lr=3e-3, warmup_steps=5, seed=8)
        student = Trainer(preset("tiny", layers=1), config, teacher=teacher, teacher_share=share)
        student.train(ReplayWindow(bot_shards, 100_000), 20, progress=False)
        with torch.no_grad():
            logp = F.log_softmax(student.model.eval()(x)["policy_logits"], -1)
        return float(F.kl_div(logp, target, reduction="batchmean"))

    assert distance_after(0.9) < distance_after(0.0)


def test_every_head_has_a_loss_kind_a_target_and_a_weight() -> None:
    import dataclasses

    from popucom.nn import LossWeights
    from popucom.nn.outputs import HEADS
    from popucom.train.losses import DERIVED_TARGETS, LOSS_KINDS, TARGET_FIELDS
    from popucom.train.window import Batch

    batch_fields = {f.name for f in dataclasses.fields(Batch)}
    weight_fields = {f.name for f in dataclasses.fields(LossWeights)}
    for head in HEADS:
        target_known = head.target in batch_fields or head.target in DERIVED_TARGETS
        assert head.loss in LOSS_KINDS and target_known and head.weight in weight_fields, head
    assert set(TARGET_FIELDS) <= batch_fields


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(0)
    net = PopucomNet(preset("tiny", attn_res=True, mhc=True)).eval()
    return net, export_onnx(net, tmp_path_factory.mktemp("onnx") / "tiny.onnx")


def test_onnx_parity_batch_1_and_64(exported) -> None:
    net, path = exported
    assert max_abs_difference(net, path, batch=1) < 1e-4
    assert max_abs_difference(net, path, batch=64) < 1e-4


def test_onnx_loader_refuses_mismatched_models(exported, bad_exported_models) -> None:
    from popucom.infer.onnx_backend import OnnxEvaluator

    net, path = exported
    evaluator = OnnxEvaluator(path)
    assert evaluator.preset == "tiny" and evaluator.metadata["feature_version"] == str(popucom.FEATURE_VERSION)
    for bad, error, message in bad_exported_models(path):
        with pytest.raises(error, match=message):
            OnnxEvaluator(bad)
    import onnxruntime

    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        with pytest.raises(RuntimeError, match="no CUDAExecutionProvider"):  # never a silent CPU fallback
            OnnxEvaluator(path, device="cuda")
