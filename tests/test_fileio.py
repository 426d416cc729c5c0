"""Atomic writes (popucom/fileio.py)."""

import os
import stat

import pytest

from popucom.fileio import current_umask, write_text_atomic


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_files_respect_the_umask(tmp_path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        assert current_umask() == umask
        path = write_text_atomic(tmp_path / "f.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode  # as open() would make it, not mkstemp's 0600
    assert path.read_text() == "{}" and not list(tmp_path.glob(".*.tmp"))
