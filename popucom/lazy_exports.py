"""A package's public names, each imported from its module on first use.

A subpackage whose `__init__` imported its heavy modules (the worker, the trainer, the batched
search) made every light module beside them heavy too: importing `popucom.train.config` runs
`popucom/train/__init__.py` first. Such a package lists its names here instead, and names them
again under `if TYPE_CHECKING:` so that type checkers and the import contracts (grimp reads
those imports) still see where each one comes from.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module `__getattr__` and `__dir__` of `package`, whose public name N lives in its
    module `homes[N]` (a name relative to the package, e.g. "worker"). A name is imported once,
    then kept in the package's namespace."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        vars(importlib.import_module(package))[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(importlib.import_module(package)), *homes})

    return __getattr__, __dir__
