"""An exclusive lock on a run directory, saying who holds it.

Two pipelines on one run directory would both play, train and export the same
iteration. The lock file holds the holder's pid, host and start time as JSON and
is created with an atomic link, so exactly one of two racing starters gets it.
A lock whose holder is a dead process on this host is stale and taken over; a
lock from another host cannot be checked from here and is reported, never broken.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from ..fileio import current_umask


class RunLockedError(RuntimeError):
    """Another live process holds the run directory."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    except OverflowError:
        return False
    return True


class RunLock:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "command": " ".join(sys.argv)[:500],
        }
        self.held = False

    def holder(self) -> dict | None:
        """The lock file's contents ({} if unreadable), or None if there is no lock."""
        try:
            info = json.loads(self.path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}
        return info if isinstance(info, dict) else {}

    def acquire(self) -> RunLock:
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o666 & ~current_umask())  # others may read who holds the run
            with os.fdopen(fd, "w") as f:
                json.dump(self.info, f)
            for _ in range(3):
                try:
                    os.link(tmp, self.path)  # fails if the lock exists: atomic test-and-set
                    self.held = True
                    return self
                except FileExistsError:
                    pass
                holder = self.holder()
                if holder is None:
                    continue  # released meanwhile
                if not self._stale(holder):
                    raise RunLockedError(self._describe(holder))
                # Take the stale lock over: only one of several takers wins the rename.
                try:
                    os.rename(self.path, f"{self.path}.stale.{os.getpid()}")
                    os.unlink(f"{self.path}.stale.{os.getpid()}")
                except FileNotFoundError:
                    pass
            raise RunLockedError(f"could not take the lock {self.path}; another pipeline keeps starting on it")
        finally:
            os.unlink(tmp)

    def _stale(self, holder: dict) -> bool:
        if not holder:
            # Unreadable: a holder killed while writing it cannot happen (the file is linked
            # complete), so someone wrote it by hand; refuse rather than guess.
            return False
        if holder.get("host") != self.info["host"]:
            return False
        pid = holder.get("pid")
        return isinstance(pid, int) and not _alive(pid)

    def _describe(self, holder: dict) -> str:
        if not holder:
            return (
                f"the run directory is locked by {self.path}, which is unreadable; if no pipeline runs on it, "
                f"delete that file"
            )
        who = f"pid {holder.get('pid')} on host {holder.get('host')}, started {holder.get('started')}"
        hint = (
            ""
            if holder.get("host") == self.info["host"]
            else f"; it runs on another host, so if you are sure it is gone, delete {self.path}"
        )
        return f"another pipeline runs on this run directory ({who}: {holder.get('command', '?')}){hint}"

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        holder = self.holder()
        if holder and holder.get("pid") == self.info["pid"] and holder.get("host") == self.info["host"]:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
