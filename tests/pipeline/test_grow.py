"""Growing a run's network (popucom/pipeline/grow.py): a new run at the source's newest
model with a network of another shape, trained on the source's window, that the pipeline
continues."""

import json

import pytest

from popucom.nn import preset
from popucom.nn.export import read_metadata
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import PipelineConfig, pipeline_preset
from popucom.pipeline.grow import grow_run
from popucom.pipeline.run_dir import RunDir, first_model, selfplay_rows


@pytest.fixture(scope="module")
def source_run(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("source")
    assert run_pipeline(root, pipeline_preset("tiny"), iterations=2, progress=False) == 2
    return root


def test_a_grown_run_trains_the_new_shape_on_the_window_and_continues(source_run, tmp_path) -> None:
    source = RunDir(source_run)
    metrics_before = source.metrics.read_text()
    wider = preset("tiny", d_model=48, heads=3)
    figures = grow_run(source_run, tmp_path / "grown", wider, epochs=0.5, progress=False)

    run = RunDir(tmp_path / "grown")
    config = PipelineConfig.load(run.config)
    assert config.model == wider and figures["iteration"] == 2 == first_model(run)
    # The window is the source's: the same rows, shared files rather than copies.
    assert selfplay_rows(run, 1) == selfplay_rows(source, 1)
    shard = next(source.selfplay.glob("iter0001-*.pcs"))
    assert (run.selfplay / shard.name).stat().st_ino == shard.stat().st_ino
    # The supervised phase is the new network's whole schedule: it then trains at the floor rate.
    assert figures["steps"] == round(0.5 * figures["window_samples"] / config.train.batch_size)
    assert config.train.total_steps == max(figures["steps"], config.train.warmup_steps + 1)
    assert json.loads(read_metadata(run.model(2))["model_config"])["d_model"] == 48
    assert json.loads((run.root / "origin.json").read_text())["grown_from"] == str(source_run)

    # The pipeline resumes at iteration 2; its evaluation looks no further back than model 2.
    assert run_pipeline(run.root, config, iterations=3, progress=False) == 3
    assert json.loads(read_metadata(run.model(3))["model_config"])["d_model"] == 48
    assert [json.loads(line)["iteration"] for line in run.metrics.read_text().splitlines()] == [1, 2, 3]
    assert source.metrics.read_text() == metrics_before  # the source run is left as it was
    assert not (source.root / "checkpoints" / "iter_0003.pt").exists()

    with pytest.raises(ValueError, match="already holds a run"):
        grow_run(source_run, run.root, wider, progress=False)


def test_grow_refuses_what_it_cannot_grow_from(source_run, tmp_path) -> None:
    with pytest.raises(ValueError, match="is not a pipeline run"):
        grow_run(tmp_path / "nothing", tmp_path / "out", preset("tiny"), progress=False)
    with pytest.raises(ValueError, match="a directory of its own"):
        grow_run(source_run, source_run, preset("tiny"), progress=False)
    with pytest.raises(ValueError, match="positive number of passes"):
        grow_run(source_run, tmp_path / "out", preset("tiny"), epochs=0, progress=False)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    pipeline_preset("tiny").save(fresh / "config.json")
    with pytest.raises(ValueError, match="no trained model to grow from"):
        grow_run(fresh, tmp_path / "out", preset("tiny"), progress=False)


def test_the_grow_command_names_a_bad_shape(source_run, tmp_path, capsys) -> None:
    from popucom.cli import main

    out = tmp_path / "out"
    assert main(["grow", "--from", str(source_run), "--run-dir", str(out), "--d-model", "50", "--heads", "3"]) == 2
    assert "d_model 50 is not a multiple of heads 3" in capsys.readouterr().err
    assert main(["grow", "--from", str(source_run), "--run-dir", str(out), "--layers", "0"]) == 2
    assert "--layers must be a positive number" in capsys.readouterr().err
    assert not out.exists()
