"""Crush and the Go OpenCode: every session of the shared databases against counts taken
from the raw rows (sqlite3, not the adapter), and the adapter's decisions on built ones."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.agent_files import crush_db, loaded_errors, part
from fixtures.samples import SAMPLES_DIR
from sessionlens.engine.errors import LoadError, NotATranscriptError, PersistError
from sessionlens.engine.export.summary import bundle_for_compaction, export_summary
from sessionlens.engine.lineage.chain import build_chain
from sessionlens.engine.lineage.graph import build_lineage
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.persist.successor import require_writable
from sessionlens.engine.tokens.counts import count_tokens

DBS = ["crush/chad-russell_k/crush.db", "crush/nithishbn_fit-rs/crush.db",
       "opencode-go/WismutHansen_lst/opencode.db"]


def _raw(db_path: Path) -> dict[str, dict[str, Any]]:
    """Per session, what its rows hold, counted straight from the tables."""
    db = sqlite3.connect(f"file:{db_path}?immutable=1", uri=True)
    cols = {r[1] for r in db.execute("PRAGMA table_info(sessions)")}
    summary_col = "summary_message_id" if "summary_message_id" in cols else "NULL"
    out: dict[str, dict[str, Any]] = {}
    for sid, summary in db.execute(f"SELECT id, {summary_col} FROM sessions"):
        roles: Counter[str] = Counter()
        calls = errors = compactions = 0
        for mid, role, parts in db.execute("SELECT id, role, parts FROM messages "
                                           "WHERE session_id = ?", (sid,)):
            items = json.loads(parts)
            if mid == summary:
                compactions += 1
                continue
            if role == "tool":
                results = [p for p in items if p["type"] == "tool_result"]
                roles["toolResult"] += len(results)
                errors += sum(1 for p in results if p["data"].get("is_error") is True)
                continue
            roles[role] += 1
            calls += sum(1 for p in items if p["type"] == "tool_call")
            errors += sum(1 for p in items if p["type"] == "finish"
                          and p["data"].get("reason") == "error")
        out[sid] = {"roles": dict(roles), "calls": calls, "errors": errors,
                    "compactions": compactions}
    db.close()
    return out


@pytest.mark.parametrize("rel", DBS)
def test_every_sample_session_matches_its_raw_rows(samples_dir: Path, rel: str) -> None:
    db_path = samples_dir / "agents" / rel
    if not db_path.exists():
        pytest.skip(f"{rel} not in the samples")
    raw = _raw(db_path)
    assert raw, "the sample holds sessions"
    fmt = "opencode-go-sqlite" if rel.startswith("opencode-go") else "crush-sqlite"
    for sid, want in raw.items():
        t = load_transcript(db_path / sid)
        assert t.format == fmt and t.header is not None and t.header.id == sid
        roles = Counter(e.role for e in t.entries if e.message is not None)
        assert dict(roles) == want["roles"], sid
        assert len(t.compactions) == want["compactions"]
        assert sum(len(e.message.tool_calls) for e in t.entries if e.message) == want["calls"]
        assert loaded_errors(t) == want["errors"]
        assert [d for d in t.diagnostics if d.severity == "error"] == []


def test_the_sample_summary_is_a_compaction_the_context_starts_from(samples_dir: Path) -> None:
    db = samples_dir / "agents" / DBS[0]
    if not db.exists():
        pytest.skip("crush sample absent")
    t = load_transcript(db / "dc3d92ac-cf53-49d1-92b0-6df9c267c183")
    (c,) = t.compactions
    assert c.summary is not None and c.summary.startswith("## Summary")
    assert t.context[0].kind == "compaction_summary" and t.context[0].entry_id == c.id
    child = load_transcript(db / "call_e5a890454e8c4a71b5efd553")
    assert child.header is not None
    assert child.header.extra["parent_session_id"] == "093f9963-97b6-4279-9bea-ded429193b34"
    parent = load_transcript(db / "093f9963-97b6-4279-9bea-ded429193b34")
    linked = [e for e in parent.entries if e.extra.get("subagent_session_id")]
    assert [e.message.tool_call_id for e in linked if e.message] == [
        "call_e5a890454e8c4a71b5efd553"]


SESSIONS = [{"id": "a", "title": "Add Redis", "prompt_tokens": 900, "completion_tokens": 100,
             "cost": 0.5, "updated_at": 1757346945, "created_at": 1757345386,
             "summary_message_id": "m4"},
            {"id": "call_1", "parent_session_id": "a", "title": "explore", "updated_at": 5,
             "created_at": 4},
            {"id": "old", "title": "older", "updated_at": 3, "created_at": 3}]
ROWS = [
    ("m1", "a", "user", [part("text", text="add redis"), part("finish", reason="stop")], 10),
    ("m2", "a", "assistant", [part("reasoning", thinking="plan"), part("text", text="ok"),
                              part("tool_call", id="call_1", name="agent", input='{"p": 1}'),
                              part("finish", reason="tool_use", time=11)], 11),
    ("m3", "a", "tool", [part("tool_result", tool_call_id="call_1", name="", content="done",
                              is_error=False),
                         part("tool_result", tool_call_id="x", name="bash", content="boom",
                              is_error=True)], 12),
    ("m4", "a", "assistant", [part("text", text="## Summary\nredis added")], 13),
    ("m5", "a", "user", [part("text", text="next")], 14),
    ("m6", "a", "assistant", [part("text", text="fine"), part("finish", reason="end_turn")], 15),
    ("m7", "a", "assistant", [part("finish", reason="error", message="API Error",
                                   details="429")], 16),
    ("bad", "a", "user", "{not json", 17),
    ("c1", "call_1", "user", [part("text", text="look")], 4),
]


def _built(tmp_path: Path) -> Path:
    return crush_db(tmp_path / "proj" / ".crush" / "crush.db", SESSIONS, ROWS)


def test_summary_usage_tool_results_and_errors_are_mapped(tmp_path: Path) -> None:
    t = load_transcript(_built(tmp_path) / "a")
    ids = [e.id for e in t.entries]
    assert ids == ["title", "m1", "m2", "m3", "m3:1", "m4", "m5", "m6", "m7"]
    assert t.session_name == "Add Redis" and t.header is not None
    assert t.header.cwd == str(tmp_path / "proj")
    assert t.header.extra["subagent_sessions"] == ["call_1"]
    c = t.entry("m4")
    assert c.type == "compaction" and c.summary == "## Summary\nredis added"
    assert [i.entry_id for i in t.context] == ["m4", "m5", "m6", "m7"]
    r1, r2 = t.entry("m3").message, t.entry("m3:1").message
    assert r1 is not None and r2 is not None
    assert (r1.tool_name, r1.is_error, r2.is_error) == ("agent", False, True)
    assert t.entry("m3").extra["subagent_session_id"] == "call_1"
    m7 = t.entry("m7").message
    assert m7 is not None and m7.stop_reason == "error" and m7.error_message == "API Error: 429"
    m6 = t.entry("m6").message
    assert m6 is not None and m6.usage is not None and m6.usage.total_tokens == 1000
    assert count_tokens(t).reported_context == 1000
    assert t.entry("m1").timestamp == "1970-01-01T00:00:10.000Z"  # seconds, as Crush writes
    (bad,) = [d for d in t.diagnostics if d.severity == "error"]
    assert bad.line == 8 and "'bad'" in bad.reason and "not JSON" in bad.reason
    assert t.gaps.lacks("usage")


def test_a_database_session_is_a_chain_and_lineage_of_its_own(tmp_path: Path) -> None:
    db = _built(tmp_path)
    chain = build_chain(db / "a")
    assert [(link.session_id, link.compactions, link.exists) for link in chain.links] == [
        ("a", 1, True)]
    assert build_lineage(db / "a", chain=chain).nodes


def test_a_database_read_from_memory_matches_the_file(tmp_path: Path) -> None:
    db = _built(tmp_path)
    on_disk = load_transcript(db / "a")
    in_memory = load_transcript_bytes(db.read_bytes(), db, session="a")
    assert [e.id for e in in_memory.entries] == [e.id for e in on_disk.entries]
    assert in_memory.path == db / "a" and in_memory.format == "crush-sqlite"


def test_the_database_alone_opens_the_newest_top_level_session(tmp_path: Path) -> None:
    db = _built(tmp_path)
    t = load_transcript(db)
    assert t.header is not None and t.header.id == "a"
    assert any("holds 3 sessions" in d.reason for d in t.diagnostics)
    child = load_transcript(db / "call_1")
    assert child.header is not None and child.header.extra["parent_session_id"] == "a"
    with pytest.raises(NotATranscriptError, match="no session 'nope'"):
        load_transcript(db / "nope")


def test_missing_tables_are_clear_errors_or_warnings(tmp_path: Path) -> None:
    no_messages = tmp_path / "x" / ".crush" / "crush.db"
    no_messages.parent.mkdir(parents=True)
    db = sqlite3.connect(no_messages)
    db.execute("CREATE TABLE sessions (id TEXT, title TEXT, updated_at INT, created_at INT)")
    db.commit()
    db.close()
    with pytest.raises(LoadError):
        load_transcript(no_messages)
    only_messages = crush_db(tmp_path / "y" / ".crush" / "crush.db", [], [
        ("m1", "s9", "user", [part("text", text="hi")], 1)],
        schema="CREATE TABLE messages (id TEXT, session_id TEXT, role TEXT, parts TEXT,"
               " model TEXT, created_at INT, updated_at INT, finished_at INT, provider TEXT);")
    t = load_transcript(only_messages / "s9")
    assert [e.message.text for e in t.entries if e.message] == ["hi"]
    assert any("no 'sessions' table" in d.reason for d in t.diagnostics)


def test_writing_is_refused_naming_the_agent_and_export_still_works(tmp_path: Path) -> None:
    t = load_transcript(_built(tmp_path) / "a")
    with pytest.raises(PersistError, match="Crush transcript"):
        require_writable(t)
    out = export_summary(bundle_for_compaction(t, "m4"), "md", tmp_path / "out.md")
    assert "redis added" in out.read_text(encoding="utf-8")


@pytest.mark.skipif(not (SAMPLES_DIR / "agents").is_dir(), reason="samples absent")
def test_sample_database_bytes_are_untouched_by_a_load(samples_dir: Path) -> None:
    db = samples_dir / "agents" / DBS[2]
    before = (db.read_bytes(), sorted(p.name for p in db.parent.iterdir()))
    load_transcript(db)
    assert (db.read_bytes(), sorted(p.name for p in db.parent.iterdir())) == before
