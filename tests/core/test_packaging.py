"""The package as a newcomer installs it: `import popucom` at the root of a clone after a plain
`pip install .` (the source folder shadows the installed package and has no compiled core), and
the newest shipped model installed with the package, found from any working folder.

The fast tests build the installed layout by hand (a site folder with the package, its core and
`shipped/`) and run `python -S`, so that only the folders they name are on the path; the slow
one makes a fresh venv and installs the package there for real (minutes: the C++ core is
compiled from scratch)."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import popucom
from popucom import core_location, weights

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "popucom"
NEWEST_SCRIPT = ROOT / "cmake" / "newest_shipped_model.cmake"


def dependency_folders() -> list[str]:
    """Where this environment's dependencies (numpy, torch, onnxruntime, PySide6) live."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([paths["purelib"], paths["platlib"]]))


def core() -> Path:
    return Path(popucom._core.__file__)


def python_s(code: list[str], path: list[Path | str], cwd: Path, stdin: str = "", env: dict | None = None):
    """`python -S CODE...` in `cwd` with exactly `path` (then the standard library) to import from:
    no site-packages, no .pth files, so no editable-install finder."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POPUCOM_WEIGHTS")}
    environ["PYTHONPATH"] = os.pathsep.join(str(p) for p in path)
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-S", *code], cwd=cwd, env=environ, input=stdin, capture_output=True, text=True, timeout=300
    )


def newest_shipped(folder: Path) -> tuple[str, list[Path]]:
    """What CMakeLists.txt installs from `folder`: cmake/newest_shipped_model.cmake run on it."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed")
    out = subprocess.run(
        [cmake, f"-DFOLDER={folder}", "-P", str(NEWEST_SCRIPT)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()  # message() writes to stderr
    name = next(line.removeprefix("name=") for line in lines if line.startswith("name="))
    return name, [Path(line.removeprefix("file=")) for line in lines if line.startswith("file=")]


def installed_layout(site: Path) -> Path:
    """`site/popucom` as a plain install leaves it: the Python files, the compiled core and the
    newest shipped model in `shipped/`, with no source tree around it."""
    package = site / "popucom"
    shutil.copytree(SOURCE, package, ignore=shutil.ignore_patterns("__pycache__", "_core.*.so", "_core.*.pyd"))
    (package / core().name).symlink_to(core())
    _, files = newest_shipped(ROOT / "weights")
    (package / "shipped").mkdir()
    for file in files:
        shutil.copy(file, package / "shipped" / file.name)
    return package


def test_cmake_installs_the_newest_version_only(tmp_path) -> None:
    for name in (
        "popucom-small-v2.onnx",
        "popucom-small-v9.onnx",
        "popucom-small-v10.onnx",
        "popucom-small-v10.pt",
        "popucom-small-v10.run.json",
        "popucom-small-v10-draft.onnx",  # not a shipped name
        "popucom-small-v11.pt",  # a checkpoint without its model is not a shipped version
        "other.onnx",
    ):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "popucom-small-v12.onnx").write_bytes(b"")
    (tmp_path / ".popucom-small-v12.shipping").mkdir()  # its ship did not finish (popucom.weights)
    name, files = newest_shipped(tmp_path)
    assert name == "popucom-small-v10" == weights.newest_model(tmp_path).stem
    assert [f.name for f in files] == ["popucom-small-v10.onnx", "popucom-small-v10.pt", "popucom-small-v10.run.json"]
    # The repository's folder: the version `best` plays in a clone, with its checkpoint.
    name, files = newest_shipped(ROOT / "weights")
    assert name == weights.newest_model(ROOT / "weights").stem
    assert {f.suffix for f in files} >= {".onnx", ".pt"} and all(f.name.startswith(name + ".") for f in files)
    (tmp_path / "empty").mkdir()
    assert newest_shipped(tmp_path / "empty") == ("", [])


def test_cmake_ranks_versions_of_one_preset_as_best_does(tmp_path) -> None:
    """A higher version of another preset is not newer: the installed version is `best`'s."""
    for name in ("popucom-small-v3.onnx", "popucom-tiny-v40.onnx", "popucom-big-v7.onnx"):
        (tmp_path / name).write_bytes(b"")
    assert newest_shipped(tmp_path)[0] == f"popucom-{weights.BEST_PRESET}-v3" == weights.newest_model(tmp_path).stem
    (tmp_path / "popucom-small-v3.onnx").unlink()  # several other presets: none is ranked first
    assert newest_shipped(tmp_path) == ("", [])
    (tmp_path / "popucom-big-v7.onnx").unlink()  # the only preset there
    assert newest_shipped(tmp_path)[0] == "popucom-tiny-v40" == weights.newest_model(tmp_path).stem


def test_the_root_of_a_clone_imports_the_installed_core(tmp_path) -> None:
    if core_location.core_file(SOURCE) is not None:
        pytest.skip("this source folder holds a core of its own (an in-place build)")
    site = tmp_path / "site"
    (site / "popucom").mkdir(parents=True)
    (site / "popucom" / core().name).symlink_to(core())
    code = "import popucom, popucom._core; print(popucom._core.__file__); print(popucom.Game.from_record('e5 d4'))"
    out = python_s(["-c", code], [site, *dependency_folders()], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == str(site / "popucom" / core().name)


def test_a_source_folder_without_any_core_says_what_to_do(tmp_path) -> None:
    if core_location.core_file(SOURCE) is not None:
        pytest.skip("this source folder holds a core of its own (an in-place build)")
    out = python_s(["-c", "import popucom"], [], cwd=ROOT)
    assert out.returncode != 0
    assert "ImportError: popucom's compiled core (popucom._core) is not built" in out.stderr, out.stderr
    assert "pip install" in out.stderr


def test_an_installed_package_plays_its_model_from_any_folder(tmp_path) -> None:
    site = tmp_path / "site"
    installed_layout(site)
    home = tmp_path / "home"
    home.mkdir()
    path = [site, *dependency_folders()]
    newest, _ = newest_shipped(ROOT / "weights")
    engine = ["-m", "popucom.cli", "engine", "--visits", "2"]
    out = python_s(engine, path, cwd=home, stdin="genmove b\nquit\n")
    assert out.returncode == 0 and out.stdout.startswith("= "), out.stderr
    assert f"ready: {newest}@2 on " in out.stderr
    # The GUI's default opponent is that model, not a bot.
    gui = "from popucom.gui.ai import default_opponent; print(default_opponent())"
    out = python_s(["-c", gui], path, cwd=home, env={"QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert str(site / "popucom" / "shipped" / newest) in out.stdout and "None" in out.stdout
    # POPUCOM_WEIGHTS points elsewhere; a folder without a model is an error that says so.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = python_s(engine, path, cwd=home, stdin="quit\n", env={"POPUCOM_WEIGHTS": str(elsewhere)})
    assert out.returncode == 2 and f"no shipped model (popucom-<preset>-v<N>.onnx) in {elsewhere}" in out.stderr
    assert "set POPUCOM_WEIGHTS" in out.stderr
    shutil.copy(site / "popucom" / "shipped" / f"{newest}.onnx", elsewhere / "popucom-small-v999.onnx")
    out = python_s(engine, path, cwd=home, stdin="quit\n", env={"POPUCOM_WEIGHTS": str(elsewhere)})
    assert out.returncode == 0 and "ready: popucom-small-v999@2" in out.stderr, out.stderr
    # A level that plays an older version, which the package does not install, names where to get it.
    out = python_s(["-m", "popucom.cli", "engine", "--level", "casual"], path, cwd=home, stdin="quit\n")
    assert out.returncode == 2 and "level casual plays popucom-small-v1, which is not in" in out.stderr
    assert "set POPUCOM_WEIGHTS" in out.stderr and "Traceback" not in out.stderr


def test_ship_never_writes_into_an_installed_package(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("POPUCOM_WEIGHTS", raising=False)
    monkeypatch.setattr(weights, "source_weights_dir", lambda: None)
    monkeypatch.chdir(tmp_path)
    assert weights.ship_dir() == tmp_path / "weights"
    monkeypatch.setenv("POPUCOM_WEIGHTS", str(tmp_path / "mine"))
    assert weights.ship_dir() == weights.weights_dir() == tmp_path / "mine"


@pytest.mark.slow
def test_a_plain_install_in_a_fresh_venv(tmp_path) -> None:
    """The README's install line, `pip install .`, in a fresh venv (the build requirements from
    the package index, as pip gets them; the dependencies taken from this environment):
    `import popucom` at the clone's root, and the engine with the shipped model from another
    folder."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # This environment's packages, after the venv's own (a path line: their .pth files are not read).
    (Path(purelib) / "dependencies.pth").write_text("\n".join(dependency_folders()) + "\n")
    build = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", f"--config-settings=build-dir={tmp_path / 'build'}"]
        + [str(ROOT)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    installed = Path(purelib) / "popucom"
    newest, files = newest_shipped(ROOT / "weights")
    assert sorted(p.name for p in (installed / "shipped").iterdir()) == sorted(f.name for f in files)
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POPUCOM_WEIGHTS")}
    code = "import popucom, popucom._core; print(popucom._core.__file__); print(popucom.Game.from_record('e5'))"
    out = subprocess.run([str(python), "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith(str(installed)), out.stderr
    home = tmp_path / "home"
    home.mkdir()
    out = subprocess.run(
        [str(venv / "bin" / "popucom"), "engine", "--visits", "2"],
        cwd=home,
        env=environ,
        input="genmove b\nquit\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0 and f"ready: {newest}@2 on " in out.stderr, out.stderr
