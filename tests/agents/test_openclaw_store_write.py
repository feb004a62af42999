"""OpenClaw 2026.9.6 itself checks the compaction SessionLens writes into its SQLite store.

On copies of the store OpenClaw wrote (committed fixture):
- its own reader, SessionManager and replay cleanup (``drivers/openclaw_context.mjs``) build,
  from the store SessionLens wrote, exactly the context ``inspect --json`` says: SessionLens's
  summary, then the kept entries;
- its own writer (``drivers/openclaw_store_append.mjs``: ``appendTranscriptEvent`` then
  ``incrementCompactionCount``, what its compactor calls) writes the same event into another
  copy: every row of every table is the same, but the clock readings;
- while an OpenClaw process holds the store (``drivers/openclaw_hold_store.mjs``: its own
  ``openOpenClawAgentDatabase``, which claims the lease) the write is refused and nothing
  changes; once it exits, the write goes through;
- (slow) ``openclaw agent --local`` resumes the session after the write and sends the model
  the summary, the kept entries and the new prompt.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import openclaw as oc
from fixtures.openclaw_store import ALPHA_LEAF, unpack_store
from fixtures.scripted_model import ScriptedModel
from sessionlens.engine.agents.openclaw.sqlite_write import write_store_compaction
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.names import choose_names
from sessionlens.engine.persist.successor import CompactionRecord

DRIVERS = Path(oc.__file__).parent
DIST = oc.NODE_MODULES / "openclaw" / "dist"
KEY = "agent:main:explicit:alpha"
KEPT = "940fea5e-1784-44ce-9e22-fc62d446ed8f"  # the user turn after the manual /compact
#: What only a clock decides (``Date.now()`` at the write).
CLOCK = {"session_windows": (6, 7, 8), "session_nodes": (5,)}

pytestmark = pytest.mark.skipif(not oc.available(), reason="Node 24 / openclaw not installed")


def _node(script: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": f"{oc.NODE_BIN}:/usr/bin:/bin", "TZ": "UTC"}
    return subprocess.run([str(oc.NODE_BIN / "node"), str(DRIVERS / script), str(DIST), *args],
                          env=env, cwd=home, capture_output=True, text=True, timeout=300,
                          check=False)


def _compact(db: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["compact", str(db / "alpha"), "--json", "--write", "append", "--cut", KEPT])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else {}, captured.err


def test_openclaw_builds_the_context_sessionlens_said(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    db = unpack_store(home)
    code, out, _ = _compact(db, capsys)
    assert code == 0 and out["written"][-1] == str(db)
    assert main(["inspect", "--json", str(db / "alpha")]) == 0
    ours = json.loads(capsys.readouterr().out)
    done = _node("openclaw_context.mjs", home, str(db), "alpha")
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout)["alpha"]
    assert [(c["role"], c["text"]) for c in theirs["context"]] == \
        [(c["role"], c["text"]) for c in ours["context"]]
    assert theirs["leaf_id"] == ours["leaf_id"] == theirs["entries"][-1]
    assert theirs["active_path"] == ours["active_path"]
    # SessionLens's summary first, then the kept entries, nothing else
    assert out["summary"].strip() in theirs["context"][0]["text"]
    assert theirs["context"][0]["text"].startswith("The conversation history before this "
                                                   "point was compacted")
    assert [c["text"] for c in theirs["context"][1:]] == [
        "After the manual compaction: which room?",
        "Noted: After the manual compaction: which room?"]


def _table_rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")]
        out: dict[str, list[tuple[Any, ...]]] = {}
        for name in names:
            clock = CLOCK.get(name, ())
            rows = con.execute(f'SELECT * FROM "{name}"').fetchall()  # noqa: S608
            out[name] = sorted((tuple(None if i in clock else v for i, v in enumerate(row))
                                for row in rows), key=repr)
        return out
    finally:
        con.close()


def _entry(db: Path) -> dict[str, Any]:
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        (text,), = con.execute("SELECT entry_json FROM session_nodes WHERE session_key = ?",
                               (KEY,)).fetchall()
    finally:
        con.close()
    entry: dict[str, Any] = json.loads(text)
    return entry


@pytest.mark.parametrize("lines", [1, 40], ids=["event_json", "event_zstd"])
def test_the_rows_are_the_ones_openclaws_own_writer_writes(tmp_path: Path, lines: int) -> None:
    ours_db, theirs_db = unpack_store(tmp_path / "a"), unpack_store(tmp_path / "b")
    t = load_transcript(ours_db / "alpha")
    summary = "## Decisions\n" + "".join(f"- decision {i}: Thursday 10:00, room 4B\n"
                                         for i in range(lines))
    record = CompactionRecord(summary=summary, first_kept_entry_id=KEPT, tokens_before=11_404,
                              tokens_after=400, provider="offline", model="extractive",
                              template="structured", audit_passed=True)
    result = write_store_compaction(t, record, choose_names(t))
    event = load_transcript(ours_db / "alpha").raw_line(
        load_transcript(ours_db / "alpha").entry(str(result.compaction_entry_id)))
    (tmp_path / "event.json").write_bytes(event)
    done = _node("openclaw_store_append.mjs", tmp_path / "b", str(theirs_db), "alpha", KEY,
                 str(tmp_path / "event.json"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {"compactionCount": 4}
    ours, theirs = _table_rows(ours_db), _table_rows(theirs_db)
    assert ours.keys() == theirs.keys()
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert differ == ["session_nodes"]  # its entry_json holds updatedAt, a clock reading
    ours_entry, theirs_entry = _entry(ours_db), _entry(theirs_db)
    assert ours_entry.pop("updatedAt") > 0 and theirs_entry.pop("updatedAt") > 0
    assert list(ours_entry.items()) == list(theirs_entry.items())
    con = sqlite3.connect(f"{ours_db.as_uri()}?mode=ro", uri=True)
    stored = con.execute("SELECT event_zstd IS NOT NULL FROM transcript_events WHERE "
                         "session_id = 'alpha' AND seq = 26").fetchone()[0]
    con.close()
    assert stored == (lines == 40)


def test_refused_while_an_openclaw_process_holds_the_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    db = unpack_store(home)
    env = {"HOME": str(home), "PATH": f"{oc.NODE_BIN}:/usr/bin:/bin"}
    holder = subprocess.Popen([str(oc.NODE_BIN / "node"), str(DRIVERS / "openclaw_hold_store.mjs"),
                               str(DIST), "main"], env=env, cwd=home, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = db.read_bytes()
        code, out, err = _compact(db, capsys)
        assert code == 1 and f"OpenClaw process {holder.pid}" in err
        assert "nothing was written" in err
        assert db.read_bytes() == before and not (db.parent / "sessionlens-backups").exists()
        assert load_transcript(db / "alpha").leaf_id == ALPHA_LEAF
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    code, out, _ = _compact(db, capsys)  # OpenClaw let go of it: now it is written
    assert code == 0 and load_transcript(db / "alpha").leaf_id != ALPHA_LEAF


@pytest.mark.slow
def test_openclaw_resumes_after_the_write_with_the_summary_and_kept_entries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    db = unpack_store(home)
    code, out, _ = _compact(db, capsys)
    assert code == 0
    assert main(["inspect", "--json", str(db / "alpha")]) == 0
    said = [(c["role"], c["text"]) for c in json.loads(capsys.readouterr().out)["context"]]
    with ScriptedModel(oc.Responder()) as model:
        run = oc.OpenClawRun(home, model)
        answer = run.turn("alpha", "next")
        assert answer["_rc"] == 0, "\n".join(run.log)
        sent = [m for m in model.requests[-1].messages()
                if m.get("role") != "system"
                and not oc._text(m.get("content")).startswith(oc.INTERNAL)]
    got = [(m["role"], oc._text(m["content"])) for m in sent]
    # SessionLens's summary, as inspect said; the live runner adds one line of run facts
    assert got[0][0] == "user" and got[0][1].startswith(said[0][1])
    assert got[0][1][len(said[0][1]):].startswith("\nRuntime: agent=main")
    assert "\n" not in got[0][1][len(said[0][1]) + 1:]
    assert out["summary"].strip() in got[0][1]
    # the kept entries (OpenClaw puts its time stamp before a user turn), then the prompt
    assert [r for r, _ in got[1:]] == ["user", "assistant", "user"]
    assert got[1][1].endswith(said[1][1]) and got[2][1] == said[2][1]
    assert got[3][1].endswith("next")
    # OpenClaw appended the turn after our rows and kept its forward index: nothing to rebuild
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        last, = con.execute("SELECT max(seq) FROM transcript_events WHERE session_id = 'alpha'"
                            ).fetchone()
        state = con.execute("SELECT indexed_seq, needs_rebuild, active_event_count FROM "
                            "session_transcript_index_state WHERE session_id = 'alpha'"
                            ).fetchone()
        active, = con.execute("SELECT count(*) FROM session_transcript_active_events WHERE "
                              "session_id = 'alpha'").fetchone()
    finally:
        con.close()
    assert last > 26 and state == (last, 0, active)
    assert _entry(db)["compactionCount"] == 4


@pytest.mark.slow
def test_openclaws_own_compactor_builds_on_the_compaction_sessionlens_wrote(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``/compact`` through OpenClaw's gateway after SessionLens's write: OpenClaw's compactor
    takes SessionLens's compaction as the previous one (its new compaction follows it and
    carries its summary on) and keeps its index whole."""
    home = tmp_path / "home"
    db = unpack_store(home)
    code, out, _ = _compact(db, capsys)
    assert code == 0
    ours = load_transcript(db / "alpha").leaf_id
    with ScriptedModel(oc.Responder()) as model:
        run = oc.OpenClawRun(home, model)
        with run.gateway() as gate:
            sent = gate.send("alpha", "/compact Focus on the room")
        assert sent.get("wait", {}).get("status") == "ok", "\n".join(run.log)
    after = load_transcript(db / "alpha")
    theirs = [e for e in after.entries if e.type == "compaction"][-1]
    assert theirs.id != ours and theirs.parent_id == ours
    assert out["summary"].splitlines()[1] in str(theirs.summary)  # carried on
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        last, = con.execute("SELECT max(seq) FROM transcript_events WHERE session_id = 'alpha'"
                            ).fetchone()
        state = con.execute("SELECT indexed_seq, needs_rebuild FROM "
                            "session_transcript_index_state WHERE session_id = 'alpha'"
                            ).fetchone()
    finally:
        con.close()
    assert state == (last, 0)
