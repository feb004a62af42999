"""The transcript lock and change detection, on their own (the writer's use is in test_writer)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from fixtures.scenarios import rich_session
from sessionlens.engine.errors import FileChangedError, LockHeldError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.guard import check_lock, ensure_unchanged, hold_lock, lock_path_for


def test_pidless_lock_is_held_while_young(tmp_path: Path) -> None:
    src, _ = rich_session(tmp_path)
    lock = lock_path_for(src)
    lock.write_text("")
    with pytest.raises(LockHeldError, match="no pid"):
        check_lock(src)
    old = time.time() - 2 * 3600
    os.utime(lock, (old, old))
    info = check_lock(src)
    assert info is not None and not info.held


def test_hold_lock_writes_our_pid_and_cleans_up(tmp_path: Path) -> None:
    src, _ = rich_session(tmp_path)
    with hold_lock(src) as lock:
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        with pytest.raises(LockHeldError):
            check_lock(src)  # our own live pid counts as held for everyone else
    assert not lock.exists()


def test_same_size_rewrite_with_old_mtime_is_detected(tmp_path: Path) -> None:
    src, ids = rich_session(tmp_path)
    t = load_transcript(src)
    st = src.stat()
    data = src.read_bytes()
    swapped = data.replace(ids["u3"].encode(), b"b0000099", 1)  # same length, other id
    assert len(swapped) == len(data) and swapped != data
    src.write_bytes(swapped)
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(FileChangedError):
        ensure_unchanged(t)
    with pytest.raises(FileChangedError, match="SHA-256"):
        ensure_unchanged(t, sha256="0" * 64)


def test_unchanged_file_passes(tmp_path: Path) -> None:
    src, _ = rich_session(tmp_path)
    ensure_unchanged(load_transcript(src))
