"""Resume stage by stage, the run lock, foreign models and bad metrics lines."""

import errno
import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from popucom.nn import PopucomNet, preset
from popucom.nn.export import export_onnx
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import pipeline_preset
from popucom.pipeline.lock import RunLock, RunLockedError
from popucom.pipeline.metrics import append_metrics, read_metrics
from popucom.pipeline.run import STAGES
from popucom.pipeline.run_dir import RunDir, check_run_model

KILL_AT = """
import logging, os, sys
from popucom.pipeline import run_pipeline
from popucom.pipeline.config import pipeline_preset

class KillAt(logging.Handler):
    def emit(self, record):
        line = record.getMessage()
        print(line, flush=True)
        if sys.argv[2] in line:
            os._exit(9)  # as abrupt as SIGKILL: no cleanup, no finally

logging.getLogger("popucom").addHandler(KillAt())
logging.getLogger("popucom").setLevel(logging.INFO)
run_pipeline(sys.argv[1], pipeline_preset("tiny"), iterations=1, progress=False)
"""


def killed_run(run: Path, marker: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILL_AT, str(run), marker], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 9, proc.stdout + proc.stderr


def test_kill_after_export_resumes_evaluation_and_metrics(tmp_path, caplog) -> None:
    killed_run(tmp_path, "exported")
    run = RunDir(tmp_path)
    assert run.model(1).exists() and not run.evaluation(1).exists() and not run.metrics.exists()
    record = json.loads(run.stages(1).read_text())["stages"]
    assert set(record) == {"selfplay", "train"}  # export's own record was cut off by the kill
    caplog.set_level(logging.INFO, logger="popucom")
    caplog.clear()
    assert run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False) == 1
    logs = caplog.messages
    assert run.evaluation(1).exists()
    (line,) = [json.loads(x) for x in run.metrics.read_text().splitlines()]
    assert line["iteration"] == 1
    # The figures of the stages that ran before the kill are kept.
    assert line["selfplay"]["games"] == 12 and line["selfplay"]["positions_per_s"] > 0
    assert line["train"]["step"] == 8 and "loss/total" in line["train"]
    assert line["evaluation"]["vs_previous"]["games"] == 2
    assert not any("self-play:" in x or "train:" in x for x in logs)  # nothing done twice
    assert set(json.loads(run.stages(1).read_text())["stages"]) == {name for name, _ in STAGES}


def test_kill_during_metrics_writes_one_line(tmp_path) -> None:
    killed_run(tmp_path, "done in")  # after the metrics line, before its stage record
    run = RunDir(tmp_path)
    assert len(run.metrics.read_text().splitlines()) == 1
    run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False)
    assert len(run.metrics.read_text().splitlines()) == 1
    assert "metrics" in json.loads(run.stages(1).read_text())["stages"]


def test_a_missing_stage_in_the_middle_is_finished(tmp_path, monkeypatch) -> None:
    """Any stage that fails is retried on resume; the stages after it run then, not before."""
    import popucom.pipeline.run as run_module

    def broken(it):
        raise RuntimeError("evaluation crashed")

    stages = [(name, broken if name == "evaluate" else fn) for name, fn in STAGES]
    monkeypatch.setattr(run_module, "STAGES", stages)
    with pytest.raises(RuntimeError, match="evaluation crashed"):
        run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False)
    run = RunDir(tmp_path)
    assert set(json.loads(run.stages(1).read_text())["stages"]) == {"selfplay", "train", "export", "engine"}
    assert not run.metrics.exists()
    assert not run.lock.exists()  # released on the way out
    monkeypatch.undo()
    run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False)
    assert run.evaluation(1).exists() and json.loads(run.metrics.read_text())["selfplay"]["games"] == 12


def test_second_pipeline_on_a_run_is_refused_and_names_the_holder(tmp_path) -> None:
    RunDir(tmp_path)
    with RunLock(tmp_path / "pipeline.lock"):
        with pytest.raises(RunLockedError, match=rf"pid {os.getpid()} on host {socket.gethostname()}, started"):
            run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False)
    assert not (tmp_path / "config.json").exists()  # refused before any work


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = tmp_path / "pipeline.lock"
    lock.write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started": "then"}))
    with RunLock(lock) as held:
        assert json.loads(lock.read_text())["pid"] == os.getpid() and held.held
    assert not lock.exists()
    # A lock from another host cannot be checked, so it is reported, not broken.
    lock.write_text(json.dumps({"pid": 1, "host": "elsewhere", "started": "then"}))
    with pytest.raises(RunLockedError, match="another host.*delete"):
        RunLock(lock).acquire()
    assert json.loads(lock.read_text())["host"] == "elsewhere"


def test_model_of_another_preset_is_refused(tmp_path) -> None:
    run = RunDir(tmp_path)
    export_onnx(PopucomNet(preset("tiny", mhc=True)).eval(), run.model(0))
    with pytest.raises(ValueError, match=r"model_0000.onnx is not a model of this run.*\n  mhc: file has True"):
        run_pipeline(tmp_path, pipeline_preset("tiny"), iterations=1, progress=False)
    with pytest.raises(ValueError, match="not a model of this run"):
        check_run_model(pipeline_preset("tiny"), run.model(0))


def test_bad_metrics_line_is_named_and_skipped(tmp_path, caplog) -> None:
    run = RunDir(tmp_path)
    run.metrics.write_text('{"iteration": 1}\n{oops\n[1, 2]\n{"iteration": 2')  # last append cut short
    with pytest.raises(ValueError, match=r"metrics.jsonl:2: not a metrics line"):
        read_metrics(run.metrics)
    caplog.set_level(logging.WARNING, logger="popucom")
    append_metrics(run, {"iteration": 3})
    warnings = caplog.messages
    assert any("metrics.jsonl:2:" in w for w in warnings) and any("metrics.jsonl:3:" in w for w in warnings)
    lines = run.metrics.read_text().splitlines()
    assert lines[-1] == '{"iteration": 3}' and lines[-2] == "[1, 2]"  # the torn line made way for a whole one


def test_run_dir_that_is_a_file_or_unwritable(tmp_path, monkeypatch) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file, not a directory"):
        run_pipeline(tmp_path / "file", pipeline_preset("tiny"), iterations=1, progress=False)

    def disk_full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    with pytest.raises(ValueError, match="cannot write into .*No space left on device"):
        run_pipeline(tmp_path / "run", pipeline_preset("tiny"), iterations=1, progress=False)
    monkeypatch.undo()
    assert not (tmp_path / "run" / "config.json").exists()
