"""Atomic writes and copies: replace keeping the mode, fail leaving no temp, never overwrite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixtures.written import listing
from sessionlens.engine._io.atomic import (
    TEMP_SUFFIX,
    atomic_copy,
    atomic_write_bytes,
    atomic_write_text,
    is_temp_name,
)
from sessionlens.engine.errors import PersistError
from sessionlens.engine.sessions.discovery import classify_session_file


def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_failure_leaves_target_and_no_temp(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"original")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "simulated I/O error")

    monkeypatch.setattr(os, "fsync", broken_fsync)  # the temp file's fsync fails
    with pytest.raises(PersistError, match="simulated"):
        atomic_write_bytes(target, b"replacement")
    assert listing(tmp_path) == {"f.txt": b"original"}


def test_exclusive_write_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "f.jsonl"
    target.write_bytes(b"mine")
    with pytest.raises(PersistError, match="already exists"):
        atomic_write_bytes(target, b"other", exclusive=True)
    assert listing(tmp_path) == {"f.jsonl": b"mine"}


def test_atomic_copy_streams_an_exact_copy(tmp_path: Path) -> None:
    src = tmp_path / "big.jsonl"
    payload = os.urandom(3 << 20)  # bigger than one copy chunk
    src.write_bytes(payload)
    dst = atomic_copy(src, tmp_path / "copy.jsonl")
    assert dst.read_bytes() == payload
    with pytest.raises(PersistError, match="already exists"):
        atomic_copy(src, dst)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl", "copy.jsonl"]


def test_leftover_temp_names_are_not_transcripts(tmp_path: Path) -> None:
    name = f".abc.jsonl.0a1b2c3d4e5f{TEMP_SUFFIX}"
    assert is_temp_name(name) and classify_session_file(name) != "primary"
    assert not is_temp_name("abc.jsonl")
