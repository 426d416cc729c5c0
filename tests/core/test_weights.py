"""Shipped models: ship from a run, find the newest, `best` as a player, and a new
run that continues from a shipped checkpoint on a machine holding only the repo."""

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from popucom.data import read_shard
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import PipelineConfig, pipeline_preset
from popucom.player_spec import PlayerSpec
from popucom.weights import BEST_PRESET, best_preset, newest_model, read_sidecar, seed_run, ship, shipped_models


def popucom_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "popucom.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    run_pipeline(run, pipeline_preset("tiny", ladder=None), iterations=1, progress=False)
    return run


def test_ship_find_and_continue(finished_run, tmp_path, monkeypatch) -> None:
    weights = tmp_path / "weights"
    assert newest_model(weights) is None
    ship(finished_run, 0, "popucom-tiny-v1", weights)
    rows = sum(len(read_shard(p)) for p in (finished_run / "selfplay").glob("*.pcs"))
    notes = {"note": "test", "rows_played": rows}
    # Deliberate recipe changes go along: those made before the shipped iteration.
    changes = [{"after_iteration": 0, "changes": {"seed": [0, 1]}}, {"after_iteration": 1, "changes": {"seed": [1, 2]}}]
    history = finished_run / "config_changes.jsonl"
    history.write_text("".join(json.dumps(c) + "\n" for c in changes))
    try:
        paths = ship(finished_run, 1, "popucom-tiny-v2", weights, notes=notes, continue_with={"inference_threads": 0})
        history.write_text('{"after_iteration": 0, "chan')  # a torn line: refused, naming the file
        with pytest.raises(ValueError, match="config_changes.jsonl is unreadable"):
            ship(finished_run, 1, "popucom-tiny-v3", weights)
    finally:
        history.unlink()
    assert [p.name for p in paths] == ["popucom-tiny-v2.onnx", "popucom-tiny-v2.pt", "popucom-tiny-v2.run.json"]
    (weights / "popucom-tiny-v10-draft.onnx").write_bytes(b"not a shipped name")
    assert [p.stem for p in shipped_models(weights)] == ["popucom-tiny-v1", "popucom-tiny-v2"]
    monkeypatch.setenv("POPUCOM_WEIGHTS", str(weights))
    spec = PlayerSpec.parse("best@visits=3")
    assert spec.kind == "checkpoint" and spec.source.endswith("popucom-tiny-v2.pt") and spec.visits == 3
    (weights / "popucom-tiny-v2.pt").rename(weights / "elsewhere.pt")  # without its checkpoint: the ONNX model
    assert PlayerSpec.parse("best").source.endswith("popucom-tiny-v2.onnx")
    (weights / "elsewhere.pt").rename(weights / "popucom-tiny-v2.pt")
    sidecar = read_sidecar(weights / "popucom-tiny-v2.pt")
    assert sidecar["iteration"] == 1 and sidecar["note"] == "test"
    assert sidecar["pipeline_config"]["inference_threads"] == 0
    assert sidecar["config_changes_for_continuing"]["inference_threads"]["continue"] == 0
    assert sidecar["recipe_changes"] == changes[:1]

    # A fresh run directory continues from the shipped checkpoint with its config and komi.
    new_run = tmp_path / "next"
    config = PipelineConfig.from_dict(seed_run(new_run, weights / "popucom-tiny-v2.pt"))
    assert json.loads((new_run / "komi_stats.json").read_text())["games"] > 0
    run_pipeline(new_run, config, iterations=1, progress=False)
    # its replay window counts the rows of the run it continues
    train = json.loads((new_run / "metrics.jsonl").read_text().splitlines()[0])["train"]
    assert train["total_rows"] == sidecar["rows_played"] + train["new_rows"]
    from popucom.train.trainer import load_checkpoint

    shipped_step = load_checkpoint(weights / "popucom-tiny-v2.pt").step
    assert load_checkpoint(new_run / "checkpoints" / "iter_0001.pt").step > shipped_step
    from popucom.nn.export import read_metadata

    # model 0 of the new run is the shipped network, labelled with its own step
    assert read_metadata(new_run / "models" / "model_0000.onnx")["step"] == str(shipped_step)
    # the same command again resumes; another checkpoint into the same directory is refused
    seed_run(new_run, weights / "popucom-tiny-v2.pt")
    with pytest.raises(ValueError, match="already holds a run"):
        seed_run(new_run, weights / "popucom-tiny-v1.pt")

    # A continued run whose window is smaller than a new run's first one keeps playing, without
    # training, until it is not (its games are not shipped: the window starts empty).
    refilling = tmp_path / "refilling"
    config = PipelineConfig.from_dict(seed_run(refilling, weights / "popucom-tiny-v2.pt"))
    run_pipeline(refilling, dataclasses.replace(config, window_min_samples=10**6), iterations=1, progress=False)
    assert load_checkpoint(refilling / "checkpoints" / "iter_0001.pt").step == shipped_step
    train = json.loads((refilling / "metrics.jsonl").read_text().splitlines()[0])["train"]
    assert 0 < train["window_samples"] < 10**6 and not any(key.startswith("loss") for key in train)


def test_bad_inputs(tmp_path, monkeypatch) -> None:
    with pytest.raises(ValueError, match="popucom-<preset>-v<N>"):
        ship(tmp_path, 0, "my-model", tmp_path)
    with pytest.raises(FileNotFoundError, match="missing"):
        ship(tmp_path, 0, "popucom-tiny-v1", tmp_path)
    (tmp_path / "x.pt").write_bytes(b"")
    with pytest.raises(ValueError, match="not a shipped checkpoint"):
        read_sidecar(tmp_path / "x.pt")
    monkeypatch.setenv("POPUCOM_WEIGHTS", str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="no shipped model"):
        PlayerSpec.parse("best")


def test_best_ranks_versions_of_one_preset_only(tmp_path, monkeypatch) -> None:
    for name in ("popucom-small-v2", "popucom-small-v10", "popucom-tiny-v30", "popucom-big-v11"):
        (tmp_path / f"{name}.onnx").write_bytes(b"")
    assert BEST_PRESET == "small" and best_preset(tmp_path) == "small"
    assert newest_model(tmp_path).stem == "popucom-small-v10"  # not tiny-v30 or big-v11
    assert [p.stem for p in shipped_models(tmp_path, "small")] == ["popucom-small-v2", "popucom-small-v10"]
    assert newest_model(tmp_path, "tiny").stem == "popucom-tiny-v30"
    monkeypatch.setenv("POPUCOM_WEIGHTS", str(tmp_path))
    assert PlayerSpec.parse("best").source.endswith("popucom-small-v10.onnx")
    for name in ("popucom-small-v2", "popucom-small-v10"):
        (tmp_path / f"{name}.onnx").unlink()
    with pytest.raises(ValueError, match="presets big, tiny, but none of small: version numbers only rank"):
        PlayerSpec.parse("best")
    if importlib.util.find_spec("PySide6") is not None:  # the GUI starts against a bot and says why
        from popucom.gui.ai import DEFAULT_BOT, default_opponent

        opponent, notice = default_opponent()
        assert opponent == DEFAULT_BOT and "none of small" in notice
    (tmp_path / "popucom-big-v11.onnx").unlink()
    assert best_preset(tmp_path) == "tiny" and PlayerSpec.parse("best").source.endswith("popucom-tiny-v30.onnx")


def test_sidecars_that_never_end_are_refused(tmp_path) -> None:
    """A .run.json (or .strength.json, a run's config) that is a link to /dev/zero, or far larger
    than such a file, is an error naming it, not a read that never ends."""
    from popucom.experiments.versions import version_point
    from popucom.fileio import MAX_METADATA_BYTES
    from popucom.pipeline.config import PipelineConfig

    (tmp_path / "popucom-tiny-v1.pt").write_bytes(b"")
    (tmp_path / "popucom-tiny-v1.run.json").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="popucom-tiny-v1.run.json is not a regular file"):
        read_sidecar(tmp_path / "popucom-tiny-v1.pt")
    (tmp_path / "popucom-tiny-v2.pt").write_bytes(b"")
    (tmp_path / "popucom-tiny-v2.run.json").write_text(json.dumps({"pipeline_config": {}}))
    (tmp_path / "popucom-tiny-v2.strength.json").write_text("{" + " " * MAX_METADATA_BYTES + "}")
    with pytest.raises(SystemExit, match=f"popucom-tiny-v2.strength.json is larger than {MAX_METADATA_BYTES}"):
        version_point(tmp_path / "popucom-tiny-v2.onnx")
    (tmp_path / "config.json").write_text("{" + " " * MAX_METADATA_BYTES + "}")
    with pytest.raises(ValueError, match=f"config.json is larger than {MAX_METADATA_BYTES} bytes"):
        PipelineConfig.load(tmp_path / "config.json")


def test_cli_resume_from_a_missing_sidecar_is_a_clear_error(tmp_path) -> None:
    (tmp_path / "m.pt").write_bytes(b"")
    out = popucom_cli(
        "pipeline", "--run-dir", str(tmp_path / "r"), "--resume-from", str(tmp_path / "m.pt"), "--iterations", "1"
    )
    assert out.returncode != 0 and "not a shipped checkpoint" in out.stderr and "Traceback" not in out.stderr


def test_cli_ship(finished_run, tmp_path) -> None:
    out = popucom_cli(
        "ship",
        "--run-dir",
        str(finished_run),
        "--iteration",
        "1",
        "--name",
        "popucom-tiny-v3",
        "--weights-dir",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "popucom-tiny-v3.onnx").exists()
    # the rows behind model 1 (iteration 0's self-play), for a run continued from it
    rows = sum(len(read_shard(p)) for p in (finished_run / "selfplay").glob("iter0000-*.pcs"))
    assert read_sidecar(tmp_path / "popucom-tiny-v3.pt")["rows_played"] == rows > 0
    bad = popucom_cli(
        "ship",
        "--run-dir",
        str(finished_run),
        "--iteration",
        "9",
        "--name",
        "popucom-tiny-v4",
        "--weights-dir",
        str(tmp_path),
    )
    assert bad.returncode != 0 and "missing" in bad.stderr and "Traceback" not in bad.stderr


def test_shipping_resets_the_machine_and_schedule_settings(tmp_path) -> None:
    from dataclasses import replace

    from popucom.cli import settings_for_continuing
    from popucom.pipeline.config import pipeline_preset

    tiny = pipeline_preset("tiny")
    tiny.save(tmp_path / "config.json")
    assert settings_for_continuing(tmp_path) == {}  # nothing to reset
    replace(tiny, inference_threads=2).save(tmp_path / "config.json")
    assert settings_for_continuing(tmp_path) == {"inference_threads": 0}
    replace(tiny, ladder=replace(tiny.ladder, every_minutes=1000.0)).save(tmp_path / "config.json")
    reset = settings_for_continuing(tmp_path)
    assert reset["ladder"]["every_minutes"] == tiny.ladder.every_minutes
    assert (
        reset["ladder"]["opponents"] == list(tiny.ladder.opponents)
        or tuple(reset["ladder"]["opponents"]) == tiny.ladder.opponents
    )


def fake_run(root, marker: bytes):
    """The files `ship` copies, with bytes that tell one run's model from another's."""
    from popucom.pipeline.config import pipeline_preset

    (root / "models").mkdir(parents=True)
    (root / "checkpoints").mkdir()
    (root / "models" / "model_0000.onnx").write_bytes(b"onnx " + marker)
    (root / "checkpoints" / "iter_0000.pt").write_bytes(b"pt " + marker)
    pipeline_preset("tiny").save(root / "config.json")
    return root


def test_ship_refuses_to_overwrite_a_version_unless_forced(tmp_path) -> None:
    weights = tmp_path / "weights"
    first, second = fake_run(tmp_path / "a", b"first"), fake_run(tmp_path / "b", b"second")
    ship(first, 0, "popucom-tiny-v1", weights)
    with pytest.raises(ValueError, match="popucom-tiny-v1 is already shipped .*--force"):
        ship(second, 0, "popucom-tiny-v1", weights)
    assert (weights / "popucom-tiny-v1.onnx").read_bytes() == b"onnx first"
    (weights / "popucom-tiny-v1.onnx").unlink()  # any file of the version counts
    with pytest.raises(ValueError, match="already shipped .*popucom-tiny-v1.pt"):
        ship(second, 0, "popucom-tiny-v1", weights)
    ship(second, 0, "popucom-tiny-v1", weights, force=True)
    assert (weights / "popucom-tiny-v1.onnx").read_bytes() == b"onnx second"
    assert (weights / "popucom-tiny-v1.pt").read_bytes() == b"pt second"
    assert sorted(p.name for p in weights.iterdir()) == [
        "popucom-tiny-v1.onnx",
        "popucom-tiny-v1.pt",
        "popucom-tiny-v1.run.json",
    ]
    # The command line says so, and --force replaces.
    args = ["ship", "--run-dir", str(first), "--iteration", "0", "--name", "popucom-tiny-v1", "--weights-dir"]
    refused = popucom_cli(*args, str(weights))
    assert refused.returncode != 0 and "already shipped" in refused.stderr and "--force" in refused.stderr
    assert "Traceback" not in refused.stderr
    forced = popucom_cli(*args, str(weights), "--force")
    assert forced.returncode == 0, forced.stderr
    assert (weights / "popucom-tiny-v1.onnx").read_bytes() == b"onnx first"


def test_a_failed_ship_leaves_no_version_that_best_plays(tmp_path, monkeypatch) -> None:
    import errno

    import popucom.weights as weights_module

    weights = tmp_path / "weights"
    old, new = fake_run(tmp_path / "old", b"old"), fake_run(tmp_path / "new", b"new")
    ship(old, 0, "popucom-tiny-v1", weights)

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    # The disk fills while the files are written: nothing of v2 is left, v1 stays the newest.
    with monkeypatch.context() as m:
        m.setattr(weights_module, "write_text_atomic", full_disk)
        with pytest.raises(OSError, match="No space"):
            ship(new, 0, "popucom-tiny-v2", weights)
        with pytest.raises(OSError, match="No space"):  # replacing: the old version stays whole
            ship(new, 0, "popucom-tiny-v1", weights, force=True)
    assert sorted(p.name for p in weights.iterdir()) == [
        "popucom-tiny-v1.onnx",
        "popucom-tiny-v1.pt",
        "popucom-tiny-v1.run.json",
    ]
    assert (weights / "popucom-tiny-v1.pt").read_bytes() == b"pt old"

    # Killed between two renames: part of v2 is in place, and nothing plays it.
    class KilledAfterTwoRenames:
        renames = 0

        def __getattr__(self, name):
            return getattr(os, name)

        def replace(self, source, target):
            if self.renames == 2:
                raise KeyboardInterrupt
            self.renames += 1
            os.replace(source, target)

    with monkeypatch.context() as m:
        m.setattr(weights_module, "os", KilledAfterTwoRenames())
        with pytest.raises(KeyboardInterrupt):
            ship(new, 0, "popucom-tiny-v2", weights)
    assert (weights / "popucom-tiny-v2.pt").exists() and not (weights / "popucom-tiny-v2.onnx").exists()
    (weights / ".popucom-tiny-v2.shipping" / "popucom-tiny-v2.onnx").rename(weights / "popucom-tiny-v2.onnx")
    assert [p.stem for p in shipped_models(weights)] == ["popucom-tiny-v1"]  # even with its model in place
    monkeypatch.setenv("POPUCOM_WEIGHTS", str(weights))
    assert PlayerSpec.parse("best").source.endswith("popucom-tiny-v1.pt")
    with pytest.raises(ValueError, match="earlier ship of popucom-tiny-v2 did not finish.*--force"):
        ship(new, 0, "popucom-tiny-v2", weights)
    ship(new, 0, "popucom-tiny-v2", weights, force=True)
    assert [p.stem for p in shipped_models(weights)] == ["popucom-tiny-v1", "popucom-tiny-v2"]
    assert not (weights / ".popucom-tiny-v2.shipping").exists()
    assert (weights / "popucom-tiny-v2.onnx").read_bytes() == b"onnx new"
