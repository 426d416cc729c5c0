"""Shipped models under `weights/`: finding the newest, shipping one from a run,
and starting a new run from a shipped training checkpoint.

A shipped version `NAME` (`popucom-<preset>-v<N>`) is three files:

    weights/NAME.onnx       the model the engine, the arena (`best`) and the GUI play with
    weights/NAME.pt         its training checkpoint (weights, optimiser state, step; loads with weights_only)
    weights/NAME.run.json   what a run needs to continue elsewhere: the pipeline config, the adaptive
                            komi statistics, and where the model came from

so `popucom pipeline --resume-from weights/NAME.pt` continues training on a fresh
machine that holds only the repository. Shipping never overwrites a version of the same name
unless asked (`--force`), and it is all or nothing: the files are written into
`weights/.NAME.shipping/` and renamed into place from there, and while that folder exists the
version is incomplete and nothing plays it (shipped_models), so a ship that fails or is killed
leaves either the versions there were or a version no one sees. Version numbers count within a
preset, so `best` is the newest version of one preset (BEST_PRESET, or the only one shipped). The
package installs the newest version's files as `popucom/shipped/` (CMakeLists.txt), so that an
installed package finds `best` from any working folder; `$POPUCOM_WEIGHTS` points elsewhere
(weights_dir).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from .fileio import read_metadata_text, write_bytes_atomic, write_text_atomic
from .run_layout import RunLayout

NAME_PATTERN = re.compile(r"^popucom-(?P<preset>[a-z0-9]+)-v(?P<version>\d+)$")


# Version numbers count within a preset (popucom-small-v12 is the twelfth `small` network), so
# only versions of one preset are ranked: `best` is the newest version of this preset, or of the
# only preset a folder holds.
BEST_PRESET = "small"

WEIGHTS_ENV = "POPUCOM_WEIGHTS"
INSTALLED_FOLDER = "shipped"  # popucom/shipped/: the newest version, installed with the package (CMakeLists.txt)


def source_weights_dir() -> Path | None:
    """The `weights/` folder of the source tree the package runs from (a clone, an editable
    install), which holds every shipped version; None for an installed package."""
    beside = Path(__file__).resolve().parent.parent / "weights"
    return beside if beside.is_dir() else None


def installed_weights_dir() -> Path | None:
    """The newest shipped version's files installed with the package (`popucom/shipped/`, beside
    the compiled core: in a clone whose package folder has no core of its own, the installed
    package's folder, which popucom/__init__.py adds to the package's path); None where the
    package was installed without them."""
    from . import __path__ as package_folders

    for folder in package_folders:
        installed = Path(folder) / INSTALLED_FOLDER
        if installed.is_dir():
            return installed
    return None


def chosen_weights_dir() -> Path | None:
    """`$POPUCOM_WEIGHTS`, where it is set (and not empty)."""
    env = os.environ.get(WEIGHTS_ENV)
    return Path(env) if env else None


def weights_dir() -> Path:
    """Where `best`, the levels and the GUI find the shipped models, from any working folder:
    `$POPUCOM_WEIGHTS`; else the source tree's `weights/` (every version); else the newest
    version installed with the package (`popucom/shipped/`); else `./weights`."""
    return chosen_weights_dir() or source_weights_dir() or installed_weights_dir() or Path.cwd() / "weights"


def ship_dir() -> Path:
    """Where `popucom ship` writes by default: `$POPUCOM_WEIGHTS`, else the source tree's
    `weights/`, else `./weights` (never into an installed package)."""
    return chosen_weights_dir() or source_weights_dir() or Path.cwd() / "weights"


def where_to_find(what: str) -> str:
    """An error message's advice on finding `what` (a shipped version's name) elsewhere."""
    return (
        f"set {WEIGHTS_ENV} to a folder holding {what} (the repository's weights/ folder holds every "
        "shipped version; an installed package holds only the newest)"
    )


def staging_dir(folder: str | Path, name: str) -> Path:
    """Where `ship` writes version `name` before renaming its files into `folder`; while it
    exists the version is incomplete."""
    return Path(folder) / f".{name}.shipping"


def shipped_models(folder: str | Path | None = None, preset: str | None = None) -> list[Path]:
    """Shipped ONNX models of `preset` (None: of every preset, grouped by preset), oldest version
    first; a version whose ship has not finished is left out."""
    folder = Path(folder) if folder is not None else weights_dir()
    found = []
    for path in folder.glob("popucom-*.onnx"):
        match = NAME_PATTERN.match(path.stem)
        if match and match["preset"] == (preset or match["preset"]) and not staging_dir(folder, path.stem).exists():
            found.append((match["preset"], int(match["version"]), path))
    return [path for _, _, path in sorted(found)]


def best_preset(folder: str | Path | None = None) -> str | None:
    """The preset whose newest version is `best` in `folder`: BEST_PRESET where it is shipped,
    else the only preset shipped; None for a folder without shipped models. ValueError where
    only other presets are shipped, several of them: their versions are not ranked together."""
    folder = Path(folder) if folder is not None else weights_dir()
    names = (NAME_PATTERN.match(path.stem) for path in shipped_models(folder))
    presets = {name["preset"] for name in names if name is not None}
    if not presets:
        return None
    if BEST_PRESET in presets:
        return BEST_PRESET
    if len(presets) == 1:
        return presets.pop()
    raise ValueError(
        f"{folder} holds versions of the presets {', '.join(sorted(presets))}, but none of {BEST_PRESET}: "
        "version numbers only rank versions of one preset, so none is the newest; name the model file, "
        f"or set {WEIGHTS_ENV} to a folder of one preset"
    )


def newest_model(folder: str | Path | None = None, preset: str | None = None) -> Path | None:
    """The newest shipped ONNX model of `preset` (default: best_preset), or None when there is none."""
    preset = preset or best_preset(folder)
    models = shipped_models(folder, preset) if preset else []
    return models[-1] if models else None


def newest_for_cpu(folder: str | Path | None = None) -> Path | None:
    """The newest shipped model in the form from which `auto` reaches the fastest CPU path: its
    checkpoint, which runs native (and OpenVINO on the ONNX model beside it for a network the
    native forward does not serve; popucom.infer.choice), else the ONNX model."""
    model = newest_model(folder)
    if model is None:
        return None
    checkpoint = model.with_suffix(".pt")
    return checkpoint if checkpoint.is_file() else model


def ship(
    run_dir: str | Path,
    iteration: int,
    name: str,
    folder: str | Path | None = None,
    notes: dict | None = None,
    continue_with: dict | None = None,
    force: bool = False,
) -> list[Path]:
    """Copies a run's model and checkpoint of `iteration` into the weights folder (default
    ship_dir()) as NAME.*, all or nothing (the module docstring). A version NAME already there,
    whole or from a ship that did not finish, is refused unless `force`, which replaces it.
    `continue_with` overrides settings of the run's config for whoever continues it (say, the
    thread count of the machine the run happened to use); the changes are listed in the sidecar."""
    if not NAME_PATTERN.match(name):
        raise ValueError(f"shipped model names look like popucom-<preset>-v<N>, not {name!r}")
    run = Path(run_dir)
    folder = Path(folder) if folder is not None else ship_dir()
    layout = RunLayout(run)
    model, checkpoint = layout.model(iteration), layout.checkpoint(iteration)
    for path in (model, checkpoint, layout.config):
        if not path.is_file():
            raise FileNotFoundError(f"cannot ship iteration {iteration} of {run}: {path} is missing")
    komi = json.loads(read_metadata_text(layout.komi, "komi statistics")) if layout.komi.exists() else None
    recipe_changes = _recipe_changes(run, iteration)  # read before anything is written: a bad file ships nothing
    files = [f"{name}.onnx", f"{name}.pt", f"{name}.run.json"]
    staging = staging_dir(folder, name)
    there = [folder / file for file in files if (folder / file).exists()]
    if not force and staging.exists():
        raise ValueError(
            f"an earlier ship of {name} did not finish ({staging} is left): nothing plays it; "
            "ship it again with --force"
        )
    if not force and there:
        raise ValueError(f"{name} is already shipped ({there[0]}): choose another name, or replace it with --force")
    config = json.loads(read_metadata_text(layout.config, "run config"))
    changed = {key: {"run": config.get(key), "continue": value} for key, value in (continue_with or {}).items()}
    config.update(continue_with or {})
    sidecar = {
        "name": name,
        "iteration": iteration,
        "source_run": run.name,
        "pipeline_config": config,
        "config_changes_for_continuing": changed,
        "recipe_changes": recipe_changes,
        "komi": komi,
        **(notes or {}),
    }
    shutil.rmtree(staging, ignore_errors=True)  # what a killed ship left: written again below
    staging.mkdir(parents=True)
    try:
        write_bytes_atomic(staging / files[0], model.read_bytes())
        write_bytes_atomic(staging / files[1], checkpoint.read_bytes())
        write_text_atomic(staging / files[2], json.dumps(sidecar, indent=1) + "\n")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # nothing was replaced: the folder is as it was
        raise
    # From here the folder only changes by renames, which need no space; the model goes last, as
    # the version's name is its .onnx (a killed ship leaves the staging folder, which hides it).
    for file in reversed(files):
        os.replace(staging / file, folder / file)
    _sync_folder(folder)
    staging.rmdir()
    _sync_folder(folder)
    return [folder / file for file in files]


def _sync_folder(folder: Path) -> None:
    """Makes the renames in `folder` durable, where the OS lets a folder be synced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _recipe_changes(run: Path, iteration: int) -> list[dict]:
    """The run's deliberate config changes (`popucom pipeline --change`) that the model of
    `iteration` was trained under: those made before that iteration."""
    history = RunLayout(run).config_changes
    if not history.exists():
        return []
    try:
        lines = [json.loads(line) for line in history.read_text().splitlines() if line.strip()]
        return [line for line in lines if line["after_iteration"] < iteration]
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{history} is unreadable ({type(e).__name__}: {e})") from None


def sidecar_path(checkpoint: str | Path) -> Path:
    """The `.run.json` that belongs beside a shipped checkpoint."""
    checkpoint = Path(checkpoint)
    return checkpoint.with_name(checkpoint.name.removesuffix(checkpoint.suffix) + ".run.json")


def read_sidecar(checkpoint: str | Path) -> dict:
    """The `.run.json` beside a shipped checkpoint; ValueError naming the file when it is unusable."""
    checkpoint = Path(checkpoint)
    path = sidecar_path(checkpoint)
    try:
        data = json.loads(read_metadata_text(path, "sidecar"))
    except FileNotFoundError:
        raise ValueError(f"{checkpoint} has no {path.name} beside it: it is not a shipped checkpoint") from None
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} is unreadable: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("pipeline_config"), dict):
        raise ValueError(f"{path} has no pipeline_config")
    return data


def _checked_sidecar(checkpoint: Path, check: Callable[[dict], None] | None) -> dict:
    """The sidecar, once everything seed_run will write from it is known to be usable: a rejected
    start must leave nothing behind, or the same command would then find the run "already there"."""
    sidecar = read_sidecar(checkpoint)
    path = sidecar_path(checkpoint)
    rows = sidecar.get("rows_played", 0)
    if not (isinstance(rows, int) and not isinstance(rows, bool) and rows >= 0):
        raise ValueError(f"{path}: rows_played {rows!r:.40} is not a count of rows")
    if sidecar.get("komi") is not None and not isinstance(sidecar["komi"], dict):
        raise ValueError(f"{path}: komi is not the komi statistics of a run (a JSON object)")
    if check is not None:
        check(sidecar)  # the training side's checks: the config, the komi statistics, the checkpoint
    return sidecar


def seed_run(run_dir: str | Path, checkpoint: str | Path, check: Callable[[dict], None] | None = None) -> dict:
    """Makes a new run directory start from a shipped checkpoint: it becomes iteration 0,
    with the shipped komi statistics. Returns the shipped pipeline config (a dict). Everything
    is checked before anything is written (`check(sidecar)` raises ValueError for what this
    module cannot judge); the checkpoint is written last, as it marks the run as begun."""
    run = Path(run_dir)
    checkpoint = Path(checkpoint)
    layout = RunLayout(run)
    start, origin = layout.checkpoint(0), layout.origin
    if start.exists():
        began = json.loads(read_metadata_text(origin, "run origin")) if origin.exists() else {}
        if began.get("resumed_from") == str(checkpoint):
            return read_sidecar(checkpoint)["pipeline_config"]  # the same command again: just resume
        raise ValueError(f"{run} already holds a run: --resume-from starts a new run directory")
    sidecar = _checked_sidecar(checkpoint, check)
    data = checkpoint.read_bytes()
    if sidecar.get("komi"):
        write_text_atomic(layout.komi, json.dumps(sidecar["komi"]))
    write_text_atomic(
        origin,
        json.dumps(
            {
                "resumed_from": str(checkpoint),
                "name": sidecar.get("name"),
                "iteration": sidecar.get("iteration"),
                "rows_before": sidecar.get("rows_played", 0),
            },
            indent=1,
        )
        + "\n",
    )
    write_bytes_atomic(start, data)
    return sidecar["pipeline_config"]
