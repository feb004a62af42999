"""The size guard on sessions of OpenClaw 2026.9.6's SQLite store: SessionLens measures what
OpenClaw's ``readSessionTranscriptActiveStats`` measures (the active SQLite history), and the
guard fires on ``maxActiveTranscriptBytes`` alone (``truncateAfterCompaction`` is retired),
unless the session row's ``transcriptByteCompactionLatch`` holds it back. Figures are those
OpenClaw's own function gave on these stores (``openclaw_active_bytes.mjs``; the Node test
runs it again)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import openclaw as oc
from fixtures.openclaw_store import (
    ALPHA_LEAF,
    SESSIONS,
    append_events,
    assistant_event,
    compaction_event,
    unpack_store,
    user_event,
)
from sessionlens.engine.cli import main
from sessionlens.engine.lineage.forensics import analyze_compactions
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.plan.triggers import active_window_bytes
from sessionlens.engine.sessions.store_guard import (
    byte_latch,
    guard_needs_truncate,
    store_active_bytes,
)
from sessionlens.engine.settings import DEFAULT_SETTINGS

SCRIPT = Path(oc.__file__).with_name("openclaw_active_bytes.mjs")
needs_node = pytest.mark.skipif(not oc.available(), reason="Node 24 / openclaw not installed")
#: readSessionTranscriptActiveStats(...).sizeBytes on the committed store (OpenClaw 2026.9.6).
COMMITTED = {"alpha": 4972, "beta": 1589}
#: ... and on ``grown_store``'s copy (the JSONL-era rule counted 11,062: the custom row
#: inside the kept tail and the bash run left out of the context).
GROWN = 10579
BIG = "x" * 3000


def _custom(entry_id: str, parent: str) -> dict[str, Any]:
    return {"type": "custom", "customType": "openclaw:bootstrap-context:full",
            "data": {"timestamp": 1796400000500, "runId": "r" * 36, "sessionId": "alpha"},
            "id": entry_id, "parentId": parent, "timestamp": "2026-12-04T04:10:00.500Z"}


def grown_store(home: Path) -> Path:
    """A copy of the committed store where ``alpha`` grew by one more turn, a ``!ls`` run kept
    out of the context, a compaction keeping that turn, and a turn after it: the rows and
    their ``transcript_event_identities`` as OpenClaw's writer adds them."""
    store = unpack_store(home)
    bash = {**user_event("u2", "a1", "!ls"),
            "message": {"role": "bashExecution", "command": "ls", "output": "a\nb",
                        "exitCode": 0, "cancelled": False, "truncated": False,
                        "excludeFromContext": True, "timestamp": 1796400000900}}
    events = [user_event("u1", ALPHA_LEAF, "next ask " + BIG), _custom("c1", "u1"),
              assistant_event("a1", "c1", "reply " + BIG, 21000), bash,
              compaction_event("k1", "u2", "u1"), user_event("u3", "k1", "after " + BIG),
              _custom("c2", "u3"), assistant_event("a3", "c2", "ok", 5000)]
    db = sqlite3.connect(store)
    last = append_events(db, "alpha", events)
    with db:
        for n, event in enumerate(events):
            db.execute("INSERT INTO transcript_event_identities (session_id, event_id, seq, "
                       "event_type, parent_id, created_at) VALUES (?,?,?,?,?,?)",
                       ("alpha", event["id"], last - len(events) + 1 + n, event["type"],
                        event["parentId"], 1796400000000 + n))
    db.close()
    return store


def _config(home: Path, compaction: dict[str, Any]) -> None:
    (home / ".openclaw" / "openclaw.json").write_text(
        json.dumps({"agents": {"defaults": {"compaction": compaction}}}))


def _plan(store: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    assert main(["plan", str(store / "alpha"), "--keep-recent", "50", *extra, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_the_active_sqlite_history_is_what_openclaw_measures(tmp_path: Path) -> None:
    store = unpack_store(tmp_path / "home")
    for session, size in COMMITTED.items():
        t = load_transcript(store / session)
        assert not guard_needs_truncate(t)
        assert store_active_bytes(t.path_entries()) == size
    grown = load_transcript(grown_store(tmp_path / "grown") / "alpha").path_entries()
    assert store_active_bytes(grown) == GROWN
    assert active_window_bytes(grown) == 11062  # the JSONL window's rule, not OpenClaw's


def test_the_guard_fires_on_max_active_transcript_bytes_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    store = unpack_store(home)
    _config(home, {"maxActiveTranscriptBytes": "4kb"})  # read from the store's openclaw.json
    out = _plan(store, capsys)
    assert out["trigger"] == "size", out["trigger_reason"]
    guard = out["size_guard"]
    assert (guard["active_bytes"], guard["max_active_bytes"]) == (COMMITTED["alpha"], 4096)
    assert guard["measure"] == "sqlite-active-history" and guard["fires"]
    assert "truncateAfterCompaction" not in out["trigger_reason"]
    assert "active SQLite history is 4.9 KiB" in out["trigger_reason"]


def test_the_guard_compares_openclaws_number_not_the_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Between the two rules: OpenClaw's 10,579 bytes are under 10,600, the JSONL rule's
    11,062 over it; with truncateAfterCompaction (which a JSONL-era guard needed) as well."""
    home = tmp_path / "home"
    store = grown_store(home)
    _config(home, {"maxActiveTranscriptBytes": 10600, "truncateAfterCompaction": True})
    out = _plan(store, capsys)
    assert out["size_guard"]["active_bytes"] == GROWN
    assert out["trigger"] == "none" and "size" not in out["triggers_holding"]
    assert "active SQLite history (10.3 KiB) under 10.4 KiB" in out["trigger_reason"]


def test_the_session_rows_latch_holds_the_guard_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    store = unpack_store(home)
    _config(home, {"maxActiveTranscriptBytes": "4kb"})
    db = sqlite3.connect(store)
    with db:
        db.execute("UPDATE session_nodes SET entry_json = json_set(entry_json, "
                   "'$.transcriptByteCompactionLatch', json(?)) WHERE session_key = ?",
                   (json.dumps({"activeBytes": 4500, "sessionId": "alpha", "maxBytes": 4096}),
                    SESSIONS["alpha"]))
    db.close()
    latch = byte_latch(load_transcript(store / "alpha"))
    assert latch is not None and latch.active_bytes == 4500
    out = _plan(store, capsys)
    assert out["trigger"] == "none" and out["size_guard"]["latched_bytes"] == 4500
    assert "transcriptByteCompactionLatch" in out["trigger_reason"]
    # grown by another limit since the latch: it fires again
    out = _plan(store, capsys, "--max-active-bytes", "400")
    assert out["trigger"] == "size"


@needs_node
def test_openclaws_own_function_gives_these_figures(tmp_path: Path) -> None:
    def theirs(home: Path, sessions: dict[str, str]) -> dict[str, Any]:
        pairs = [f"{sid}={key}" for sid, key in sessions.items()]
        done = subprocess.run([str(oc.NODE_BIN / "node"), str(SCRIPT),
                               str(oc.NODE_MODULES / "openclaw" / "dist"), "main", *pairs],
                              capture_output=True, text=True, timeout=300, check=False,
                              env={"HOME": str(home), "PATH": f"{oc.NODE_BIN}:/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr[-3000:]
        out: dict[str, Any] = json.loads(done.stdout)
        return out

    unpack_store(tmp_path / "a")
    committed = theirs(tmp_path / "a", {"alpha": SESSIONS["alpha"],
                                        "beta": "agent:main:explicit:beta"})
    assert {k: v["sizeBytes"] for k, v in committed.items()} == COMMITTED
    grown = grown_store(tmp_path / "b")
    ours = store_active_bytes(load_transcript(grown / "alpha").path_entries())
    assert theirs(tmp_path / "b", SESSIONS)["alpha"]["sizeBytes"] == ours == GROWN


def test_forensics_names_the_size_guard_of_a_store_compaction(tmp_path: Path) -> None:
    """``k1`` came at 21,000 tokens, under the threshold: on a store with
    ``maxActiveTranscriptBytes`` set, the size guard (no truncateAfterCompaction needed)."""
    t = load_transcript(grown_store(tmp_path / "home") / "alpha")
    settings = replace(DEFAULT_SETTINGS, context_window=32000, reserve_window_share=0.25)
    trig = {f.compaction_id: f.trigger for f in analyze_compactions(t, settings)}
    assert trig["k1"] == "manual"
    sized = replace(settings, max_active_transcript_bytes=4096)
    assert {f.compaction_id: f.trigger for f in analyze_compactions(t, sized)}["k1"] == \
        "size-guard"
