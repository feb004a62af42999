"""The compaction flow on a real OpenClaw transcript (a copy in tmp_path), offline provider."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from fixtures.qt_app import mount, settle
from fixtures.written import listing, path_to_root, read_rows
from sessionlens.engine import load_transcript

pytestmark = pytest.mark.samples


def test_sample_offline_compaction_accept_and_reload(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, samples_dir: Path) -> None:
    matches = sorted(samples_dir.glob("04_*.jsonl"))
    if not matches:
        pytest.skip("sample 04 not found")
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = folder / matches[0].name
    shutil.copy2(matches[0], path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    ctx = make_app()
    parts = mount(qtbot, ctx, path, keep_recent=2000)
    plan = parts.controller.plan
    rows = read_rows(path)
    active = path_to_root(rows)
    first_kept = active.index(plan.first_kept_entry_id)
    before = listing(folder)
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=60_000) as blocker:
        parts.panel.run()
    record = blocker.args[0]
    assert listing(folder) == before
    parts.panel._confirm_accept = lambda *_a: ("successor", True)
    with qtbot.waitSignal(parts.controller.accepted, timeout=60_000) as blocker:
        parts.panel.accept_run()
    result = blocker.args[0]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest  # original untouched
    new_rows = read_rows(result.successor_path)
    assert new_rows[-1]["type"] == "compaction" and new_rows[-1]["summary"] == record.result.summary
    new_ids = {r.get("id") for r in new_rows}
    # everything the original kept after the cut is in the successor
    assert set(active[first_kept + 1:]) <= new_ids
    successor = load_transcript(result.successor_path)
    assert not [d for d in successor.diagnostics if d.severity == "error"]
    qtbot.waitUntil(lambda: ctx.controller.path == result.successor_path, timeout=60_000)
    settle(qtbot, ctx)


def test_the_progress_bar_ends_on_the_plans_chunk_count(
        qtbot: Any, qloop: Any, make_app: Any, tmp_path: Path, samples_dir: Path) -> None:
    """Sample 01's plan has two chunks: the finished run says "chunk 2 of 2", the number the
    planned cut shows, not "chunk 1 of 1"."""
    matches = sorted(samples_dir.glob("01_*.jsonl"))
    if not matches:
        pytest.skip("sample 01 not found")
    path = tmp_path / matches[0].name
    shutil.copy2(matches[0], path)
    ctx = make_app()
    parts = mount(qtbot, ctx, path, keep_recent=20_000)
    chunks = len(parts.controller.plan.chunks)
    assert chunks == 2 and f"in {chunks} chunk(s)" in parts.panel.cut_label.text()
    with qtbot.waitSignal(parts.controller.writes_ready, timeout=60_000):
        parts.panel.run()
    assert parts.panel.progress.text() == f"chunk {chunks} of {chunks}"
