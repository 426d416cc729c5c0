"""Atomic writes (popucom/fileio.py)."""

import os
import stat

import pytest

from popucom.fileio import current_umask, remove_stale_temporaries, write_atomic, write_text_atomic


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


def test_the_sweep_removes_what_a_killed_writer_left(tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    write_text_atomic(tmp_path / "sub" / "kept.json", "old")
    leftover = tmp_path / "sub" / ".kept.json.abc123.tmp"  # write_atomic's temporary, never renamed
    leftover.write_bytes(b"half")
    unrelated = tmp_path / "notes.tmp"  # not a write_atomic name: left alone
    unrelated.write_text("mine")
    assert remove_stale_temporaries(tmp_path) == [leftover] and not leftover.exists()
    assert unrelated.exists() and (tmp_path / "sub" / "kept.json").read_text() == "old"
    write_atomic(tmp_path / "sub" / "kept.json", lambda f: f.write(b"new"))  # a finished write leaves none
    assert remove_stale_temporaries(tmp_path) == []
