"""Recovery of a damaged run directory: a torn last line of any append-only file, a forged or
malformed stage record, and every recovery message of the pipeline followed to the letter
(the run then proceeds)."""

import builtins
import io
import json
import logging
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from popucom.data import read_shard
from popucom.nn import preset
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import pipeline_preset
from popucom.pipeline.config_change import apply_changes
from popucom.pipeline.lock import RunLock, RunLockedError
from popucom.pipeline.run_dir import RunDir


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A tiny run with one complete iteration (evaluation and a ladder point included)."""
    root = tmp_path_factory.mktemp("finished") / "run"
    run_pipeline(root, pipeline_preset("tiny"), iterations=1, progress=False)
    return root


@pytest.fixture
def run_copy(finished, tmp_path) -> Path:
    return Path(shutil.copytree(finished, tmp_path / "run"))


def resume(root: Path, iterations: int = 2) -> int:
    return run_pipeline(root, pipeline_preset("tiny"), iterations=iterations, progress=False)


def assert_proceeded(root: Path, iterations: int = 2) -> None:
    run = RunDir(root)
    assert run.checkpoint(iterations).exists() and run.model(iterations).exists()
    metrics = [json.loads(line) for line in run.metrics.read_text().splitlines() if line.strip().endswith("}")]
    assert iterations in [m.get("iteration") for m in metrics]


def tear(path: Path) -> None:
    """Appends half a JSON line with no newline: what a kill in the middle of an append leaves."""
    with open(path, "a") as f:
        f.write('{"model": "model_00')


# --- append-only files ------------------------------------------------------------------------


def test_a_torn_last_ladder_point_is_skipped_and_the_next_starts_its_own_line(run_copy, caplog) -> None:
    points = run_copy / "ladder" / "points.jsonl"
    tear(points)
    caplog.set_level(logging.WARNING, logger="popucom")
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)
    assert any("points.jsonl:2" in m and "torn" in m for m in caplog.messages)  # read past
    assert any("points.jsonl: removed a torn last line" in m for m in caplog.messages)  # then removed
    assert [json.loads(line)["model"] for line in points.read_text().splitlines()] == ["model_0001", "model_0002"]


class AppendWatch:
    """Every file opened for appending (builtins.open and io.open) below a folder."""

    def __init__(self, root: Path, monkeypatch) -> None:
        self.root, self.seen = root.resolve(), set()
        real = builtins.open

        def watched(file, mode="r", *args, **kwargs):
            if "a" in mode and isinstance(file, (str, Path)):
                path = Path(file).resolve()
                if path.is_relative_to(self.root):
                    self.seen.add(path.relative_to(self.root).as_posix())
            return real(file, mode, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", watched)
        monkeypatch.setattr(io, "open", watched)


def test_every_append_only_file_of_a_run_tolerates_a_torn_last_line(run_copy, monkeypatch) -> None:
    """The files a run appends to (found by watching every open for appending during an
    iteration and a --change): each one torn in its last line, the run still resumes."""
    watch = AppendWatch(run_copy, monkeypatch)
    apply_changes(str(run_copy), pipeline_preset("tiny"), {"seed": "0"})  # no change: nothing written
    apply_changes(str(run_copy), pipeline_preset("tiny"), {"evaluation.visits": "5"})
    changed = pipeline_preset("tiny", evaluation=pipeline_preset("tiny").evaluation.__class__(openings=1, visits=5))
    run_pipeline(run_copy, changed, iterations=2, progress=False)
    monkeypatch.undo()
    # TensorBoard's event files are its own records, each checksummed: its reader skips a torn one.
    appended = {name for name in watch.seen if not name.startswith("tb/")}
    assert appended == {"metrics.jsonl", "ladder/points.jsonl"}
    torn = sorted(appended) + ["config_changes.jsonl"]  # rewritten whole, but a hand edit may tear it
    for name in torn:
        tear(run_copy / name)
    apply_changes(str(run_copy), changed, {"evaluation.visits": "6"})
    lines = (run_copy / "config_changes.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["changes"] == {"evaluation.visits": [5, 6]}  # on a line of its own
    final = pipeline_preset("tiny", evaluation=changed.evaluation.__class__(openings=1, visits=6))
    assert run_pipeline(run_copy, final, iterations=3, progress=False) == 3
    assert_proceeded(run_copy, 3)
    for name in appended:
        text = (run_copy / name).read_text()
        assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())


# --- stage records ----------------------------------------------------------------------------


def test_a_forged_complete_stage_record_does_not_skip_the_iteration(run_copy, caplog) -> None:
    run = RunDir(run_copy)
    forged = json.loads(run.stages(1).read_text())
    forged["iteration"] = 2
    run.stages(2).write_text(json.dumps(forged))
    caplog.set_level(logging.WARNING, logger="popucom")
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)
    assert any("iter_0002.json" in m and "checkpoints/iter_0002.pt" in m for m in caplog.messages)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: {**r, "iteration": 7}, "is the record of iteration 7, not of 2"),
        (lambda r: {**r, "stages": {**r["stages"], "polish": {"seconds": 1, "result": {}}}}, "unknown stage 'polish'"),
        (lambda r: {**r, "stages": {"selfplay": {"seconds": "soon", "result": {}}}}, "'selfplay': seconds 'soon'"),
        (lambda r: {**r, "stages": {"selfplay": {"seconds": float("nan"), "result": {}}}}, "'selfplay': seconds nan"),
        (lambda r: {**r, "stages": {"selfplay": {"seconds": 1, "result": [1]}}}, "'selfplay': result is not an object"),
        (lambda r: {**r, "stages": []}, "has no 'stages'"),
        (lambda r: [r], "has no 'stages'"),
    ],
)
def test_a_malformed_stage_record_is_named_and_deleting_it_reruns_the_iteration(run_copy, edit, message: str) -> None:
    run = RunDir(run_copy)
    record = json.loads(run.stages(1).read_text())
    record["iteration"] = 2
    record["stages"] = {"selfplay": record["stages"]["selfplay"]}
    (run_copy / "selfplay" / "iter0001-00000.pcs").write_bytes(
        (run_copy / "selfplay" / "iter0000-00000.pcs").read_bytes()
    )
    run.stages(2).write_text(json.dumps(edit(record)))
    with pytest.raises(ValueError, match=message) as info:
        resume(run_copy)
    text = str(info.value)
    assert str(run.stages(2)) in text and "delete it" in text
    run.stages(2).unlink()
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)


# --- every recovery message, followed -----------------------------------------------------------


def set_model_config(path: Path, value: str) -> None:
    """Rewrites an exported model's model_config metadata, which is what the run checks of a model."""
    import onnx

    model = onnx.load(str(path))
    for entry in model.metadata_props:
        if entry.key == "model_config":
            entry.value = value
    onnx.save(model, str(path))


def test_a_foreign_model_deleted_as_advised_is_exported_again(run_copy) -> None:
    run = RunDir(run_copy)
    # Another architecture's model as its metadata describe it (a fresh export takes seconds).
    set_model_config(run.model(1), json.dumps(preset("tiny", mhc=True).to_dict()))
    with pytest.raises(ValueError, match="model_0001.onnx is not a model of this run") as info:
        resume(run_copy)
    assert "delete it and run the same command again" in str(info.value)
    run.model(1).unlink()
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)


def test_a_model_without_metadata_deleted_as_advised_is_exported_again(run_copy) -> None:
    run = RunDir(run_copy)
    set_model_config(run.model(1), "{broken")
    with pytest.raises(ValueError, match="no readable model_config metadata") as info:
        resume(run_copy)
    assert "delete it and run the same command again" in str(info.value)
    run.model(1).unlink()
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)


def test_an_unreadable_chunk_of_the_current_selfplay_deleted_as_advised_is_replayed(run_copy) -> None:
    chunk = run_copy / "selfplay" / "iter0001-00000.pcs"
    chunk.write_bytes(b"PCSHARD1" + b"\x00" * 40)
    with pytest.raises(ValueError, match="iter0001-00000.pcs is unreadable.*delete it") as info:
        resume(run_copy)
    assert "run the same command again" in str(info.value)
    chunk.unlink()
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)


def test_a_damaged_shard_of_a_finished_iteration_deleted_as_advised_leaves_the_window(run_copy) -> None:
    shard = run_copy / "selfplay" / "iter0000-00001.pcs"
    data = bytearray(shard.read_bytes())
    data[-200:] = bytes(200)  # a zeroed tail: the last rows' targets read as plausible zeros
    shard.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="iter0000-00001.pcs.*checksum") as info:
        resume(run_copy)
    assert "delete it and run the same command again" in str(info.value)
    shard.unlink()
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)


@pytest.mark.parametrize("content", ["{torn", '{"iteration": 1}'])
def test_an_unreadable_stage_record_deleted_as_advised_reruns_only_what_is_missing(
    run_copy, caplog, content: str
) -> None:
    run = RunDir(run_copy)
    run.stages(1).write_text(content)
    with pytest.raises(ValueError, match="stage record .*iter_0001.json") as info:
        resume(run_copy)
    assert "delete it" in str(info.value)
    run.stages(1).unlink()
    caplog.set_level(logging.INFO, logger="popucom")
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)
    first = [m for m in caplog.messages if m.startswith("[iter 1]")]
    assert not any("self-play:" in m or "train:" in m for m in first)  # finished outputs are kept


def test_a_malformed_ladder_point_deleted_as_advised(run_copy) -> None:
    points = run_copy / "ladder" / "points.jsonl"
    points.write_text("{not a point}\n" + points.read_text())
    with pytest.raises(ValueError, match=r"points.jsonl:1: malformed ladder point") as info:
        resume(run_copy)
    assert "fix or delete that line" in str(info.value)
    points.write_text("".join(points.read_text().splitlines(keepends=True)[1:]))
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)


def test_another_preset_on_a_run_and_the_advice_to_leave_it_out(run_copy, capsys) -> None:
    from popucom.cli import main

    assert main(["pipeline", "--run-dir", str(run_copy), "--preset", "cpu", "--iterations", "2", "--quiet"]) == 2
    assert "leave out --preset" in capsys.readouterr().err
    assert main(["pipeline", "--run-dir", str(run_copy), "--iterations", "2", "--quiet"]) == 0
    assert_proceeded(run_copy)


def test_a_lock_of_another_host_deleted_as_advised(run_copy) -> None:
    run = RunDir(run_copy)
    run.lock.write_text(json.dumps({"pid": 1, "host": f"not-{socket.gethostname()}", "started": "then"}))
    with pytest.raises(RunLockedError, match="delete") as info:
        resume(run_copy)
    assert str(run.lock) in str(info.value)
    run.lock.unlink()
    assert resume(run_copy) == 2
    with RunLock(run.lock):
        pass


def test_a_corrupt_packed_position_names_its_shard_and_row(run_copy) -> None:
    """A position no game reaches (written so, checksum and all) fails training naming the file
    and the row, and the advice (delete the shard) lets the run go on."""
    from popucom.data import write_shard
    from popucom.data.shards import FIELDS

    path = run_copy / "selfplay" / "iter0000-00000.pcs"
    shard = read_shard(path)
    arrays = {name: np.array(shard.arrays[name]) for name in FIELDS}
    arrays["state"][5:] = np.uint64(2**64 - 1)  # whichever row training samples first
    write_shard(path, arrays, shard.header["meta"])
    with pytest.raises(ValueError, match=r"iter0000-00000.pcs: row \d+: packed position is corrupt") as info:
        resume(run_copy)
    assert "delete it and run the same command again" in str(info.value)
    path.unlink()
    assert resume(run_copy) == 2
    assert_proceeded(run_copy)
