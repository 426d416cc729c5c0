"""`popucom pipeline --resume-from weights/NAME.pt`: everything is checked before anything is
written, so a refused start leaves the run directory empty and the same command, once the
shipped files are fixed, starts the run."""

import json
import math
from pathlib import Path

import pytest

from popucom.cli import main
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import pipeline_preset
from popucom.weights import ship


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("source")
    run_pipeline(run, pipeline_preset("tiny", ladder=None), iterations=1, progress=False)
    weights = tmp_path_factory.mktemp("weights")
    ship(run, 1, "popucom-tiny-v1", weights, notes={"rows_played": 100})
    return weights


def nan_lr(sidecar: dict) -> dict:
    sidecar["pipeline_config"]["train"]["lr"] = math.nan
    return sidecar


def no_model(sidecar: dict) -> dict:
    del sidecar["pipeline_config"]["model"]
    return sidecar


def other_preset(sidecar: dict) -> dict:
    sidecar["pipeline_config"]["model"] = {**sidecar["pipeline_config"]["model"], "layers": 3}
    return sidecar


@pytest.mark.parametrize(
    "edit, message",
    [
        (nan_lr, "train.lr must be a finite number"),
        (no_model, "pipeline_config"),
        (other_preset, "layers"),
        (lambda s: {**s, "rows_played": "many"}, "rows_played 'many'"),
        (lambda s: {**s, "rows_played": -5}, "rows_played -5"),
        (lambda s: {**s, "komi": {"diffs": "x"}}, "komi"),
        (lambda s: {**s, "komi": [1, 2]}, "komi"),
    ],
)
def test_a_bad_sidecar_writes_nothing(shipped, tmp_path, capsys, edit, message):
    refuse_bad_sidecar(shipped, tmp_path / "new", capsys, edit, message)


def test_once_the_sidecar_is_fixed_the_same_command_starts_the_run(shipped, tmp_path, capsys) -> None:
    command = refuse_bad_sidecar(shipped, tmp_path / "new", capsys, nan_lr, "train.lr must be a finite number")
    assert main(command) == 0
    new = tmp_path / "new"
    assert (new / "checkpoints" / "iter_0001.pt").exists() and (new / "metrics.jsonl").exists()


def refuse_bad_sidecar(shipped, new, capsys, edit, message) -> list[str]:
    """The shipped sidecar edited: the start is refused twice (the second time not as "already
    holds a run"), naming the sidecar, with nothing written; the sidecar is then restored.
    Returns the command."""
    checkpoint = shipped / "popucom-tiny-v1.pt"
    sidecar_path = shipped / "popucom-tiny-v1.run.json"
    good = sidecar_path.read_text()
    command = ["pipeline", "--run-dir", str(new), "--resume-from", str(checkpoint), "--iterations", "1", "--quiet"]
    try:
        sidecar_path.write_text(json.dumps(edit(json.loads(good))))
        assert main(command) == 2
        err = capsys.readouterr().err
        assert message in err and str(sidecar_path) in err, err
        assert not new.exists() or not [p for p in new.rglob("*") if p.is_file()]
        assert main(command) == 2  # the same refusal again, not "already holds a run"
        assert "already holds a run" not in capsys.readouterr().err
    finally:
        sidecar_path.write_text(good)
    return command


def test_a_damaged_shipped_checkpoint_writes_nothing(shipped, tmp_path, capsys) -> None:
    damaged = tmp_path / "popucom-tiny-v1.pt"
    data = bytearray((shipped / "popucom-tiny-v1.pt").read_bytes())
    data[len(data) // 2 :] = bytes(len(data) - len(data) // 2)
    damaged.write_bytes(bytes(data))
    (tmp_path / "popucom-tiny-v1.run.json").write_text((shipped / "popucom-tiny-v1.run.json").read_text())
    new = tmp_path / "new"
    assert main(["pipeline", "--run-dir", str(new), "--resume-from", str(damaged), "--iterations", "1"]) == 2
    assert str(damaged) in capsys.readouterr().err
    assert not new.exists() or not [p for p in new.rglob("*") if p.is_file()]
