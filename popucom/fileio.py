"""Atomic file writes: a killed process leaves either the old file or the new one, never half of one.

The new file gets the mode an ordinary open() would give it (0666 less the umask), not the
0600 of the temporary file it starts as, so run directories stay shareable.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows (os.umask can only set it,
    and setting it to read it would race with other threads creating files)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Calls write(f) on a temporary file beside `path`, syncs it, then renames it over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def remove_stale_temporaries(root: str | os.PathLike) -> list[Path]:
    """Deletes the temporary files write_atomic leaves when its process is killed between
    creating and renaming one. Only for a directory whose writers are known to be gone
    (a run directory whose lock this process holds). Returns what was removed."""
    removed = []
    for tmp in Path(root).rglob(".*.tmp"):
        try:
            tmp.unlink()
            removed.append(tmp)
        except FileNotFoundError:
            pass
    return removed


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    return write_atomic(path, lambda f: f.write(data))


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


def check_writable(path: str | os.PathLike, what: str) -> None:
    """Raises ValueError now, before long work, if a file cannot be written at `path` (a read-only or
    full directory, a parent that is a file): better than losing hours of work at the final write."""
    path = Path(path)
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "is a directory", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
        try:
            os.write(fd, b"x" * 4096)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        raise ValueError(f"cannot write {what} at {path}: {e.strerror or e}") from None
