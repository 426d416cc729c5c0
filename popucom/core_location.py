"""Finding the compiled core (`popucom._core`) when the package is imported from a source folder
that has none.

A plain `pip install .` puts the package, its compiled core included, into site-packages; the
clone's own `popucom/` folder holds only the Python files. Python puts the working folder (or a
script's folder) first on its path, so at the clone's root `import popucom` imports the source
folder and would fail on `from ._core import ...`. `find_core` is called by
`popucom/__init__.py` before that import: where the core cannot be found through the package's
own path (an editable install's finder, or a build in place, finds it), it looks for an
installed `popucom/` folder holding a core further along `sys.path` and adds that folder to the
package's path, so the core (and the files installed beside it, such as the shipped model in
`popucom/shipped/`) load from there while the Python modules load from the source folder.
Without one, the import fails with an ImportError that says what to do.

This module imports neither torch nor the core.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

CORE = "_core"


def core_file(folder: Path) -> Path | None:
    """The compiled core in a package folder (`_core` with an extension-module suffix), if any."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{CORE}{suffix}"
        if path.is_file():
            return path
    return None


def installed_package_folder(package: str, source: Path, search_path: list[str]) -> Path | None:
    """The first `package` folder on `search_path`, other than `source`, that holds a core."""
    for entry in search_path:
        try:
            folder = (Path(entry or ".") / package).resolve()
        except OSError:
            continue
        if folder != source and core_file(folder) is not None:
            return folder
    return None


def find_core(package: str, package_path: list[str], search_path: list[str] | None = None) -> None:
    """Makes `package._core` importable (see the module docstring): nothing when the package's
    own path finds it; else adds the folder of an installed copy that holds one to
    `package_path` (the package's `__path__`, changed in place); else ImportError."""
    if importlib.util.find_spec(f"{package}.{CORE}") is not None:
        return
    source = Path(package_path[0]).resolve()
    installed = installed_package_folder(package, source, sys.path if search_path is None else search_path)
    if installed is not None:
        package_path.append(str(installed))
        return
    raise ImportError(
        f"{package}'s compiled core ({package}.{CORE}) is not built: Python imported the source folder "
        f"{source}, and no installed {package} with a compiled core is on the path. Install the package "
        "(`pip install .`, or `pip install -e .` to work on it) with this Python "
        f"({sys.executable}), or run it from outside the source tree."
    )
