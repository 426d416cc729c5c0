"""`--backend` on every command the README names it for, and what it does there: the engine's
and the arena's model players run on the backend named (`best`'s checkpoint through the
exported model shipped beside it, for a backend that runs exported models)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from popucom.cli import build_parser
from popucom.infer.backends import BACKENDS

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "popucom.cli"]
# The least each command needs besides its flags.
REQUIRED = {"arena": ["random", "greedy"], "engine": [], "pipeline": []}


def readme_backend_commands() -> list[str]:
    """The commands of the README's "`--backend` (engine, arena, ...)" sentence."""
    found = re.search(r"`--backend` \(([^)]*)\)", (ROOT / "README.md").read_text())
    assert found, "the README no longer names the commands that take --backend"
    return [name.strip() for name in found.group(1).split(",")]


def popucom(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "POPUCOM_WEIGHTS"}
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=300)


def test_every_command_the_readme_names_takes_backend() -> None:
    parser = build_parser()
    commands = [name for name in readme_backend_commands() if name in REQUIRED]
    assert {"engine", "arena", "pipeline"} <= set(commands)
    for command in commands:
        for backend in BACKENDS:
            args = parser.parse_args([command, *REQUIRED[command], "--backend", backend])
            assert args.backend == backend
        with pytest.raises(SystemExit):
            parser.parse_args([command, *REQUIRED[command], "--backend", "gpu-magic"])


def test_the_engine_plays_on_the_backend_named(tmp_path) -> None:
    out = popucom("engine", "--backend", "onnx", "--visits", "2", cwd=tmp_path, stdin="genmove b\nquit\n")
    assert out.returncode == 0 and out.stdout.startswith("= "), out.stderr
    assert re.search(r"ready: popucom-\w+-v\d+@2 on onnxruntime cpu .* model popucom-\w+-v\d+\.onnx", out.stderr)
    out = popucom("engine", "--backend", "onnx", "--level", "casual", cwd=tmp_path, stdin="quit\n")
    assert out.returncode == 0 and "(level casual) on onnxruntime cpu" in out.stderr, out.stderr


def test_the_arena_plays_on_the_backend_named(tmp_path) -> None:
    out = popucom(
        "arena",
        "best@visits=2",
        "random",
        "--openings",
        "1",
        "--threads",
        "1",
        "--backend",
        "onnx",
        "--results",
        str(tmp_path / "results.jsonl"),
        "--games-out",
        str(tmp_path / "games.jsonl"),
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert re.search(r"^popucom-\w+-v\d+@2: onnxruntime cpu", out.stdout, re.MULTILINE), out.stdout
