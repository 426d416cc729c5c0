"""Atomic file writes: a killed process leaves either the old file or the new one, never half of one.

The new file gets the mode an ordinary open() would give it (0666 less the umask), not the
0600 of the temporary file it starts as, so run directories stay shareable.

Reading is bounded where a file is small by nature (a sidecar, a run's metadata, a game
record): `read_bounded` takes only a regular file of at most a given size, so a symlink to
/dev/zero, a FIFO or a huge file is an error naming it, not a read that never ends or fills memory.

Append-only JSON-lines files (a run's metrics.jsonl, a ladder's points.jsonl, the arena's game
records) cannot be rewritten whole on every line; a kill in the middle of an append leaves a
torn last line. `json_lines` skips it with a warning, so a resume never halts on it, and
`append_lines` removes it before it writes, so the new lines start on a line of their own.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

logger = logging.getLogger(__name__)


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
    def write(f: BinaryIO) -> None:
        f.write(data)

    return write_atomic(path, write)


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


# Sidecars and run metadata (a shipped .run.json or .strength.json, a run's config.json, komi
# statistics, a TensorRT plan's .json) are a few kilobytes; a file far beyond is not one of them.
MAX_METADATA_BYTES = 1 << 20


def read_bounded(path: str | os.PathLike, max_bytes: int, what: str) -> bytes:
    """The bytes of `path`, a regular file (a symlink to one is followed) of at most `max_bytes`;
    ValueError naming `what` and the file for anything else. FileNotFoundError (and other
    OSErrors) for a file that cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without waiting for a writer
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{what} {path} is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(max_bytes + 1)  # the size may change after fstat: the read is bounded too
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise ValueError(f"{what} {path} is larger than {max_bytes} bytes, more than such a file holds")
    return data


def read_bounded_text(path: str | os.PathLike, max_bytes: int, what: str) -> str:
    """read_bounded as UTF-8 text; a file that is not UTF-8 is a ValueError naming it."""
    try:
        return read_bounded(path, max_bytes, what).decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what} {path} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_metadata_text(path: str | os.PathLike, what: str) -> str:
    """A sidecar or metadata file's text, bounded by MAX_METADATA_BYTES (read_bounded_text)."""
    return read_bounded_text(path, MAX_METADATA_BYTES, what)


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


def append_lines(path: str | os.PathLike, text: str) -> None:
    """Appends whole lines (`text` ends in a newline) in one write, on a line of their own: a
    torn last line is removed first (logged as a warning), and a whole last line left without its
    newline gets one, so every line of the file stays one JSON value."""
    with open(path, "a+b") as f:
        _end_last_line(f, Path(path))
        f.write(text.encode("utf-8"))
        f.flush()


def _end_last_line(f: BinaryIO, path: Path) -> None:
    size = f.seek(0, os.SEEK_END)
    if not size:
        return
    f.seek(size - 1)
    if f.read(1) == b"\n":
        return
    start = size
    while start > 0:  # back to the newline before the last line, a block at a time
        step = min(1 << 16, start)
        f.seek(start - step)
        newline = f.read(step).rfind(b"\n")
        if newline >= 0:
            start += newline - step + 1
            break
        start -= step
    f.seek(start)
    last = f.read(size - start)
    try:
        json.loads(last)
    except (ValueError, RecursionError):
        f.truncate(start)  # a kill in the middle of an append: not a line anyone wrote whole
        logger.warning(f"{path}: removed a torn last line (an interrupted append): {last[:60]!r}")
        return
    f.write(b"\n")


def json_lines(path: str | os.PathLike) -> list[tuple[int, str]]:
    """(line number, text) of the non-blank lines of a JSON-lines file, less a torn last line: one
    with no newline after it that is not JSON, which only a kill in the middle of an append leaves
    (it is logged as a warning). Every other line is the caller's to parse and judge. Raises
    FileNotFoundError for a missing file."""
    text = Path(path).read_text(errors="replace")
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if lines and not text.endswith("\n"):
        number, last = lines[-1]
        try:
            json.loads(last)
        except (ValueError, RecursionError):
            lines.pop()
            logger.warning(f"{path}:{number}: torn last line (an interrupted append), skipped: {last[:60]!r}")
    return lines
