"""Deliberate recipe changes of a run: `popucom pipeline --change KEY=VALUE` (pipeline/config_change.py)."""

import json
from dataclasses import replace

import pytest

from popucom.cli import build_parser, pipeline_config_from_args
from popucom.pipeline.config import PipelineConfig, pipeline_preset
from popucom.pipeline.config_change import changed_config, parse_changes
from popucom.pipeline.lock import RunLock, RunLockedError
from popucom.pipeline.run_dir import RunDir, resolve_config


def config_for(argv: list[str]) -> PipelineConfig:
    return pipeline_config_from_args(build_parser().parse_args(["pipeline", *argv]))


def started_run(tmp_path) -> tuple[RunDir, PipelineConfig]:
    run = RunDir(tmp_path)
    started = replace(pipeline_preset("tiny"), seed=7, warm_start=None)
    started.save(run.config)
    return run, started


def test_a_change_is_saved_recorded_and_then_the_runs_own_config(tmp_path) -> None:
    run, started = started_run(tmp_path)
    changed = config_for(["--run-dir", str(tmp_path), "--change", "train.min_lr_ratio=0.3", "--change", "seed=8"])
    assert changed.train.min_lr_ratio == 0.3 and changed.seed == 8
    assert changed == replace(started, seed=8, train=replace(started.train, min_lr_ratio=0.3))
    assert PipelineConfig.load(run.config) == changed
    assert resolve_config(run, changed) == changed  # the run continues with it: no refusal
    (line,) = (run.root / "config_changes.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["changes"] == {"train.min_lr_ratio": [started.train.min_lr_ratio, 0.3], "seed": [7, 8]}
    assert record["after_iteration"] == -1
    # The same change again changes nothing and records nothing; another is appended.
    config_for(["--run-dir", str(tmp_path), "--change", "seed=8"])
    config_for(["--run-dir", str(tmp_path), "--change", "selfplay.full_visits=96"])
    lines = (run.root / "config_changes.jsonl").read_text().splitlines()
    assert [list(json.loads(x)["changes"]) for x in lines] == [["train.min_lr_ratio", "seed"], ["selfplay.full_visits"]]


def test_a_new_run_takes_the_change_in_its_first_config(tmp_path) -> None:
    new = tmp_path / "new"
    changed = config_for(["--run-dir", str(new), "--change", "train.lr=0.001"])
    assert changed.train.lr == 0.001 and changed == replace(
        pipeline_preset("cpu"), train=replace(pipeline_preset("cpu").train, lr=0.001)
    )
    assert not (new / "config.json").exists()  # the pipeline writes it when it starts the run
    assert "train.lr" in (new / "config_changes.jsonl").read_text()


@pytest.mark.parametrize(
    "change, message",
    [
        ("train.min_lr_ratio", "want KEY=VALUE"),
        ("=3", "want KEY=VALUE"),
        ("train.no_such=1", "no such setting; this section has: batch_size, lr"),
        ("nosection.lr=1", "no section 'nosection'"),
        ("train=1", "no such setting"),
        ("train.min_lr_ratio=high", "want a float, like the current 0.1"),
        ("train.batch_size=12.5", "want an int"),
        ("train.compile=1", "want a bool"),
        ("train.adam_betas=[0.9]", "want 2 values"),
        ("model.layers=6", "network and preset are fixed"),
        ("preset=gpu", "network and preset are fixed"),
        ("evaluation.every=0", "not valid: evaluation.every must be a whole number from 1"),
    ],
)
def test_bad_changes_are_refused_with_the_problem_named(tmp_path, change: str, message: str) -> None:
    run, started = started_run(tmp_path)
    with pytest.raises(ValueError, match=message):
        config_for(["--run-dir", str(tmp_path), "--change", change])
    assert PipelineConfig.load(run.config) == started
    assert not (run.root / "config_changes.jsonl").exists()


def test_a_change_needs_the_runs_own_config_and_a_free_run(tmp_path) -> None:
    run, started = started_run(tmp_path)
    with pytest.raises(ValueError, match="leave out --preset"):
        config_for(["--run-dir", str(tmp_path), "--preset", "tiny", "--change", "seed=9"])
    with RunLock(run.lock), pytest.raises(RunLockedError):
        config_for(["--run-dir", str(tmp_path), "--change", "seed=9"])
    assert PipelineConfig.load(run.config) == started


def test_parse_changes_keeps_the_last_of_a_repeated_key() -> None:
    assert parse_changes(["a.b=1", " a.b = 2 ", "c=x=y"]) == {"a.b": "2", "c": "x=y"}
    config, record = changed_config(pipeline_preset("tiny"), {"selfplay.root_search": "gumbel"})
    assert config.selfplay.root_search == "gumbel" and record == {"selfplay.root_search": ["puct", "gumbel"]}
