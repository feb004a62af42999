"""pi and OpenClaw still load what SessionLens writes with a summary's provenance.

The provenance sits under the compaction's ``details`` (beside pi's own ``readFiles`` /
``modifiedFiles``) and the pinned block inside the summary text. For each origin (generated,
edited, the user's own) a successor and an append are written for a generated session, and
pi 0.58.3's SessionManager and OpenClaw 2026.9.6's ``buildSessionContext`` must start their
context with exactly the written summary, and pi's reader must keep the details as written.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fidelity.generated import generated_session
from fidelity.node_runner import node_unavailable, run_job
from sessionlens.engine.compaction import (
    CompactionOptions,
    edited_outcome,
    prepare_write,
    run_compaction,
    user_summary_outcome,
    write_prepared,
)
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import CompactionSettings
from sessionlens.engine.summarize.providers import OfflineProvider

SETTINGS = CompactionSettings(keep_recent_tokens=3_000, context_window=60_000)


def _write(folder: Path, origin: str, mode: str) -> Path:
    own = folder / f"{origin}-{mode}"
    own.mkdir()
    path = generated_session(7).write(own / "s.jsonl")
    t = load_transcript(path)
    plan = plan_compaction(t, SETTINGS, manual=True)
    first = plan.summarized_entry_ids[0]
    options = CompactionOptions(pins=(first,))
    if origin == "user":
        out = user_summary_outcome(t, plan, "## Goal\nthe user's own words", options)
    else:
        out = asyncio.run(run_compaction(t, plan, OfflineProvider(), options))
        if origin == "edited":
            out = edited_outcome(t, out, out.summary + "\n\nEdited: keep the CI green.")
    wrote = write_prepared(t, prepare_write(t, out, mode),  # type: ignore[arg-type]
                           accept_failed_audit=True)
    return wrote.successor_path or path


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    reason = node_unavailable()
    if reason is not None:
        pytest.skip(f"loading needs the agents' own packages: {reason}")
    folder = tmp_path_factory.mktemp("provenance")
    written = [_write(folder, o, m) for o in ("generated", "edited", "user")
               for m in ("successor", "append")]
    # pi's SessionManager may rewrite what it opens: it reads copies, the check reads ours
    copies = []
    for p in written:
        copy = p.with_name("pi-" + p.name)
        shutil.copy(p, copy)
        copies.append(copy)
    records = {r["summaries"]: r for r in run_job({"summaries": [str(c) for c in copies]})}
    out = []
    for p, c in zip(written, copies, strict=True):
        last = [json.loads(line) for line in p.read_text().splitlines()
                if json.loads(line).get("type") == "compaction"][-1]
        out.append({"path": p, "written": last, "got": records[str(c)]})
    return out


def test_both_agents_start_from_the_written_summary(loaded: list[dict[str, Any]]) -> None:
    assert len(loaded) == 6
    for r in loaded:
        assert r["got"]["piRole"] == "compactionSummary", r["path"]
        assert r["got"]["pi"] == r["written"]["summary"], r["path"]
        assert r["got"]["openclawRole"] == "compactionSummary", r["path"]
        assert r["got"]["openclaw"] == r["written"]["summary"], r["path"]
        # the pinned text travels inside the summary, so both agents see it
        if r["written"]["details"]["summaryProvenance"]["origin"] != "user":
            assert "Pinned by the user" in r["got"]["pi"]


def test_pi_keeps_the_details_with_the_provenance(loaded: list[dict[str, Any]]) -> None:
    origins = set()
    for r in loaded:
        details = r["got"]["details"]
        assert details == r["written"]["details"], r["path"]
        assert {"readFiles", "modifiedFiles"} <= set(details)
        origins.add(details["summaryProvenance"]["origin"])
    assert origins == {"generated", "edited", "user"}
