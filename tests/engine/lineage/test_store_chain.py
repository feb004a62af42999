"""A session's chain in OpenClaw's SQLite store: its windows, why each began, its archives."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import zstandard

from fixtures.openclaw_store import unpack_store
from sessionlens.engine.lineage.chain import build_chain, chain_to_json
from sessionlens.engine.load.reader import load_transcript


def _connect(store: Path) -> sqlite3.Connection:
    con = sqlite3.connect(store, isolation_level=None)
    con.create_function("octet_length", 1, lambda v: None if v is None else len(
        v.encode() if isinstance(v, str) else v), deterministic=True)
    return con


def _reset(store: Path) -> tuple[str, str, list[str]]:
    """What a reset of ``alpha`` leaves, as OpenClaw's tables hold it: a window ``alpha2``
    (reason reset, previous alpha) with its own header row, and the old generation archived
    zstd-compressed under a ``.jsonl.reset.<ts>`` name."""
    con = _connect(store)
    try:
        rows = [r[0] for r in con.execute("SELECT event_json FROM transcript_events WHERE "
                                          "session_id = 'alpha' AND event_json IS NOT NULL "
                                          "ORDER BY seq")]
        blob = zstandard.ZstdCompressor().compress(("\n".join(rows) + "\n").encode())
        name = "alpha.jsonl.reset.2026-12-04T03-40-00.000Z"
        con.execute("INSERT INTO session_transcript_archives (session_id, generation, "
                    "session_key, reason, encoding, archive_blob, archive_sha256, "
                    "archive_name, created_at) VALUES ('alpha', 'g1', "
                    "'agent:main:explicit:alpha', 'reset', 'zstd', ?, ?, ?, 1796355600000)",
                    (blob, hashlib.sha256(blob).hexdigest(), name))
        con.execute("INSERT INTO session_windows (session_id, session_key, previous_session_id,"
                    " reason, created_at, updated_at) VALUES ('alpha2', "
                    "'agent:main:explicit:alpha', 'alpha', 'reset', 1796355600000, "
                    "1796355600001)")
        header = json.dumps({"type": "session", "version": 4, "id": "alpha2",
                             "timestamp": "2026-12-04T03:40:00.000Z", "cwd": "/w"})
        con.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
                    "event_utf8_bytes) VALUES ('alpha2', 0, ?, 1796355600000, ?)",
                    (header, len(header)))
    finally:
        con.close()
    return "alpha2", name, [json.loads(r)["id"] for r in rows[1:]]


def test_the_windows_of_a_session_key_are_its_chain(tmp_path: Path) -> None:
    store = unpack_store(tmp_path / "home")
    alone = build_chain(store / "alpha")
    assert [(link.session_id, link.relation, link.compactions) for link in alone.links] == [
        ("alpha", "self", 3)]
    new, archive, archived_ids = _reset(store)
    chain = build_chain(store / new)
    assert [(link.session_id, link.relation, link.reason) for link in chain.links] == [
        ("alpha", "ancestor", None), (new, "self", "reset")]
    assert chain.links[1].parent == (store / "alpha").resolve()
    assert chain.archives == ((store / archive).resolve(),)
    assert chain_to_json(chain)["chain"][1]["reason"] == "reset"
    archived = load_transcript(store / archive)  # an archive opens like a session
    assert [e.id for e in archived.entries] == archived_ids
    assert archived.header is not None and archived.header.extra["archived"] == "reset"
