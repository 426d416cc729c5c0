"""Atomic writes (popucom/fileio.py)."""

import os
import stat

import pytest

from popucom.fileio import (
    current_umask,
    read_bounded,
    read_bounded_text,
    remove_stale_temporaries,
    write_atomic,
    write_text_atomic,
)


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


@pytest.mark.parametrize(
    "before, after",
    [
        ("", '{"b": 2}\n'),
        ('{"a": 1}\n', '{"a": 1}\n{"b": 2}\n'),
        ('{"a": 1}\n{"a": ', '{"a": 1}\n{"b": 2}\n'),  # a kill mid-append: the torn line goes
        ('{"a": 1}', '{"a": 1}\n{"b": 2}\n'),  # whole but without its newline: it stays, ended
        ('{"a": "' + "x" * 200_000, '{"b": 2}\n'),  # a torn line longer than the block read back
        ('{"a": 1}\n\xff\xfe', '{"a": 1}\n{"b": 2}\n'),
    ],
)
def test_append_lines_starts_a_line_of_its_own(tmp_path, before: str, after: str) -> None:
    from popucom.fileio import append_lines, json_lines

    path = tmp_path / "f.jsonl"
    if before:
        path.write_bytes(before.encode("latin-1"))  # \xff\xfe: bytes that are no UTF-8
    append_lines(path, '{"b": 2}\n')
    assert path.read_text() == after
    assert [text for _, text in json_lines(path)] == after.splitlines()


def test_json_lines_skips_only_a_torn_last_line(tmp_path, caplog) -> None:
    from popucom.fileio import json_lines

    path = tmp_path / "f.jsonl"
    path.write_text('{"a": 1}\n\n{oops\n{"a": 2}\n{"a": ')
    with caplog.at_level("WARNING", logger="popucom.fileio"):
        assert json_lines(path) == [(1, '{"a": 1}'), (3, "{oops"), (4, '{"a": 2}')]  # line 3 is the caller's to judge
    assert any("f.jsonl:5: torn last line" in m for m in caplog.messages)
    path.write_text('{"a": 1}\n{"a": ')  # ended by a newline: a bad line like any other, not torn
    path.write_text(path.read_text() + "\n")
    assert json_lines(path) == [(1, '{"a": 1}'), (2, '{"a": ')]
    with pytest.raises(FileNotFoundError):
        json_lines(tmp_path / "missing.jsonl")


def test_read_bounded_takes_only_a_small_regular_file(tmp_path) -> None:
    small = tmp_path / "small.json"
    small.write_text('{"a": 1}')
    (tmp_path / "link.json").symlink_to(small)
    assert read_bounded(tmp_path / "link.json", 8, "sidecar") == b'{"a": 1}'  # a link to a file is followed
    with pytest.raises(ValueError, match=r"sidecar .*small.json is larger than 7 bytes"):
        read_bounded(small, 7, "sidecar")
    (tmp_path / "zero.run.json").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match=r"sidecar .*zero.run.json is not a regular file"):
        read_bounded(tmp_path / "zero.run.json", 1 << 20, "sidecar")
    os.mkfifo(tmp_path / "pipe.json")  # opened without waiting for a writer, then refused
    with pytest.raises(ValueError, match="pipe.json is not a regular file"):
        read_bounded(tmp_path / "pipe.json", 1 << 20, "sidecar")
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing.json", 1 << 20, "sidecar")
    (tmp_path / "latin.json").write_bytes(b'{"a": "\xe9"}')
    with pytest.raises(ValueError, match="latin.json is not UTF-8 text"):
        read_bounded_text(tmp_path / "latin.json", 1 << 20, "sidecar")
