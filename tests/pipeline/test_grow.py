"""Growing a run's network (popucom/pipeline/grow.py): a new run at the source's newest
complete iteration with a network of another shape, trained on the source's window, that
the pipeline continues."""

import dataclasses
import json
import shutil

import pytest

from popucom.nn import preset
from popucom.nn.export import read_metadata
from popucom.pipeline import grow, run_pipeline
from popucom.pipeline.config import EvalConfig, PipelineConfig, pipeline_preset
from popucom.pipeline.grow import grow_run, grown_model
from popucom.pipeline.lock import RunLock, RunLockedError
from popucom.pipeline.run_dir import GROW_UNFINISHED, RunDir, first_model, selfplay_rows

# Every 2nd model plays the evaluation, against the model 2 older: a run grown at 3 must
# evaluate model 4 against model 3, its first (model 2 is not in it).
SOURCE_CONFIG = pipeline_preset("tiny", evaluation=EvalConfig(openings=1, visits=4, every=2))
WIDER = dict(d_model=48, heads=3)


@pytest.fixture(scope="module")
def source_run(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("source")
    assert run_pipeline(root, SOURCE_CONFIG, iterations=3, progress=False) == 3
    return root


def test_a_grown_run_trains_the_new_shape_on_the_window_and_continues(source_run, tmp_path) -> None:
    source = RunDir(source_run)
    metrics_before = source.metrics.read_text()
    wider = grown_model(source_run, **WIDER)
    assert wider == dataclasses.replace(SOURCE_CONFIG.model, **WIDER)  # the source's network, reshaped
    figures = grow_run(source_run, tmp_path / "grown", wider, epochs=0.5, progress=False)

    run = RunDir(tmp_path / "grown")
    config = PipelineConfig.load(run.config)
    assert config.model == wider and figures["iteration"] == 3 == first_model(run) == run.latest_model()
    assert not (run.root / GROW_UNFINISHED).exists()
    # The window is the source's: the same rows, shared files rather than copies.
    assert selfplay_rows(run, 2) == selfplay_rows(source, 2)
    shard = next(source.selfplay.glob("iter0002-*.pcs"))
    assert (run.selfplay / shard.name).stat().st_ino == shard.stat().st_ino
    # The supervised phase is the new network's whole schedule: it then trains at the floor rate.
    assert config.train.total_steps == max(figures["steps"], config.train.warmup_steps + 1)
    assert json.loads(read_metadata(run.model(3))["model_config"])["d_model"] == 48

    assert run_pipeline(run.root, config, iterations=4, progress=False) == 4
    assert not run.model(0).exists() and not run.checkpoint(0).exists()  # no fresh start first
    assert json.loads(read_metadata(run.model(4))["model_config"])["d_model"] == 48
    assert json.loads(run.evaluation(4).read_text())["previous"] == "model_0003"
    assert [json.loads(line)["iteration"] for line in run.metrics.read_text().splitlines()] == [1, 2, 3, 4]
    assert source.metrics.read_text() == metrics_before  # the source run is left as it was
    assert not source.checkpoint(4).exists()

    with pytest.raises(ValueError, match="already holds a run"):
        grow_run(source_run, run.root, wider, progress=False)
    # A grown run grows again from its own newest model.
    again = grow_run(run.root, tmp_path / "again", grown_model(run.root, layers=3), epochs=0.2, progress=False)
    assert again["iteration"] == 4


def test_grow_starts_at_the_newest_complete_iteration_and_keeps_a_shipped_sources_rows(source_run, tmp_path) -> None:
    copy = tmp_path / "source"
    shutil.copytree(source_run, copy)
    # As if killed during iteration 3's evaluation: model 3 exists, its iteration is not complete.
    record = json.loads(RunDir(copy).stages(3).read_text())
    record["stages"] = {k: v for k, v in record["stages"].items() if k in ("selfplay", "train", "export")}
    RunDir(copy).stages(3).write_text(json.dumps(record))
    (copy / "metrics.jsonl").write_text("".join((copy / "metrics.jsonl").read_text().splitlines(True)[:2]))
    # A source started from a shipped model: its earlier rows set the window's size.
    (copy / "origin.json").write_text(json.dumps({"resumed_from": "weights/x.pt", "rows_before": 5000}))
    figures = grow_run(copy, tmp_path / "grown", grown_model(copy, **WIDER), epochs=0.2, progress=False)
    assert figures["iteration"] == 2 and figures["rows_before"] == 5000
    run = RunDir(tmp_path / "grown")
    # The rows of iterations 0 and 1 (iteration 2's self-play belongs to the unfinished iteration), and the 5000.
    assert selfplay_rows(run, 1)[0] == selfplay_rows(RunDir(copy), 1)[0] - selfplay_rows(RunDir(copy), 2)[1]


def test_a_deeper_network_starts_as_the_old_one_and_continues_its_schedule(source_run, tmp_path) -> None:
    import torch

    from popucom.data.positions import random_features
    from popucom.train.trainer import load_network_with_checkpoint

    deeper = grown_model(source_run, layers=SOURCE_CONFIG.model.layers + 1)
    figures = grow_run(source_run, tmp_path / "deeper", deeper, epochs=0, progress=False)
    assert figures["deepened"] and figures["steps"] == 0
    run, source = RunDir(tmp_path / "deeper"), RunDir(source_run)
    old, old_ckpt = load_network_with_checkpoint(source.checkpoint(3))
    new, new_ckpt = load_network_with_checkpoint(run.checkpoint(3), expect=deeper)
    assert new_ckpt.step == old_ckpt.step  # the old schedule goes on where it was
    assert PipelineConfig.load(run.config).train == SOURCE_CONFIG.train
    x = torch.from_numpy(random_features(6, seed=1, komi_range=5))
    with torch.inference_mode():
        torch.testing.assert_close(new(x)["policy_logits"], old(x)["policy_logits"], rtol=1e-4, atol=2e-4)
    with pytest.raises(ValueError, match="only a deepened one starts trained"):
        grow_run(source_run, tmp_path / "wider", grown_model(source_run, **WIDER), epochs=0, progress=False)
    assert not (tmp_path / "wider" / GROW_UNFINISHED).exists()  # refused before any work


def test_an_unfinished_grow_is_refused_by_the_pipeline_and_redone(source_run, tmp_path, monkeypatch) -> None:
    target = tmp_path / "grown"
    model = grown_model(source_run, **WIDER)

    def broken_export(*args, **kwargs):
        raise RuntimeError("export failed")

    monkeypatch.setattr(grow, "export_iteration", broken_export)
    with pytest.raises(RuntimeError, match="export failed"):
        grow_run(source_run, target, model, epochs=0.2, progress=False)
    assert (target / GROW_UNFINISHED).exists() and RunDir(target).checkpoint(3).exists()
    with pytest.raises(ValueError, match="`popucom grow` did not finish here"):
        run_pipeline(target, PipelineConfig.load(target / "config.json"), iterations=4, progress=False)
    monkeypatch.undo()
    figures = grow_run(source_run, target, model, epochs=0.2, progress=False, teacher_share=0.5)
    assert figures["iteration"] == 3 and figures["teacher_share"] == 0.5  # taught by the source's model 3
    assert not (target / GROW_UNFINISHED).exists() and RunDir(target).model(3).exists()


def test_grow_refuses_what_it_cannot_grow_from(source_run, tmp_path) -> None:
    with pytest.raises(ValueError, match="is not a pipeline run"):
        grow_run(tmp_path / "nothing", tmp_path / "out", preset("tiny"), progress=False)
    with pytest.raises(ValueError, match="a directory of its own"):
        grow_run(source_run, source_run, preset("tiny"), progress=False)
    for epochs in (-1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="number of passes over the window, 0 or more"):
            grow_run(source_run, tmp_path / "out", preset("tiny"), epochs=epochs, progress=False)
    with pytest.raises(ValueError, match="--teacher-share 2"):
        grow_run(source_run, tmp_path / "out", preset("tiny"), teacher_share=2, progress=False)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    pipeline_preset("tiny").save(fresh / "config.json")
    with pytest.raises(ValueError, match="no trained model to grow from"):
        grow_run(fresh, tmp_path / "out", preset("tiny"), progress=False)
    with RunLock(RunDir(source_run).lock), pytest.raises(RunLockedError):  # a pipeline runs there
        grow_run(source_run, tmp_path / "out2", preset("tiny"), progress=False)


def test_the_grow_command_names_a_bad_shape(source_run, tmp_path, capsys) -> None:
    from popucom.cli import main

    out = tmp_path / "out"
    assert main(["grow", "--from", str(source_run), "--run-dir", str(out), "--d-model", "50", "--heads", "3"]) == 2
    assert "d_model 50 is not a multiple of heads 3" in capsys.readouterr().err
    assert main(["grow", "--from", str(source_run), "--run-dir", str(out), "--layers", "0"]) == 2
    assert "--layers must be a positive number" in capsys.readouterr().err
    assert main(["grow", "--from", str(tmp_path / "none"), "--run-dir", str(out)]) == 2
    assert "is not a pipeline run" in capsys.readouterr().err
    assert not out.exists()
