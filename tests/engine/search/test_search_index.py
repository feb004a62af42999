"""The index across a machine's sessions: planted facts found, kept up to date, never corrupt."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.search_sessions import Machine, openclaw_session
from sessionlens.engine.search import plan_pool
from sessionlens.engine.search.index_db import INDEX_FILE
from sessionlens.engine.search.indexer import FTS5_DEFAULTS
from sessionlens.engine.search.search_index import SearchIndex


def _top(index: SearchIndex, query: str, **kw: object) -> tuple[Path, str] | None:
    hits = index.search(query, **kw).hits  # type: ignore[arg-type]
    return (hits[0].path, hits[0].entry_id) if hits else None


def _db(m: Machine) -> sqlite3.Connection:
    return sqlite3.connect(m.index.folder / INDEX_FILE)


def test_planted_facts_are_found_in_their_file_and_entry(machine: Machine) -> None:
    stats = machine.index.update()
    assert stats.indexed == 3 and not stats.problems
    for name, query in [("db", "pgbouncer-eu7 port"), ("error", "ECONNRESET queue-worker-9f3a1c77"),
                        ("cc", "zebra_canary_rollout")]:
        path, entry_id = machine.facts[name]
        assert _top(machine.index, query) == (path.resolve(), entry_id), name
    hit = machine.index.search("ECONNRESET").hits[0]
    assert hit.agent == "ops" and hit.role == "user" and "ECONNRESET" in hit.snippet
    start, end = hit.highlights[0]
    assert hit.snippet[start:end] == "ECONNRESET"
    assert machine.index.search("zebra canary", agent="claude-code").hits[0].agent == "claude-code"
    assert machine.index.search("ECONNRESET", agent="main").hits == ()
    # TranscriptBuilder stamps 2026-01-01, Claude Code lines 2026-04-07
    later = datetime(2026, 3, 1, tzinfo=UTC)
    assert {h.agent for h in machine.index.search("build", since=later).hits} == {"claude-code"}
    only = machine.facts["db"][0].parent
    assert {h.path.parent for h in machine.index.search("build", paths=[only]).hits} == \
        {only.resolve()}


def test_a_first_build_leaves_fts5_merging_on_and_every_chunk_searchable(
        machine: Machine) -> None:
    """The first build turns FTS5's automerge off (its pending-data size and crisis-merge
    threshold up) and commits in batches; afterwards FTS5's defaults are back and each
    chunk row has its FTS row (one id each, as SQLite would pick)."""
    machine.index.update()
    with _db(machine) as conn:
        config = dict(conn.execute("SELECT k, v FROM chunk_fts_config WHERE k IN "
                                   "('automerge', 'hashsize', 'crisismerge')").fetchall())
        ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
        docs = conn.execute("SELECT count(*) FROM chunk_fts_docsize").fetchone()[0]
    assert config == FTS5_DEFAULTS
    assert ids == list(range(1, len(ids) + 1)) and docs == len(ids) > 0


def _chunks(m: Machine) -> list[tuple[str, str]]:
    with _db(m) as conn:
        return sorted(conn.execute("SELECT f.path, c.text FROM chunks c JOIN files f "
                                   "ON f.id = c.file_id").fetchall())


def _same_as_a_rebuild(m: Machine, tmp_path: Path, name: str) -> None:
    fresh = SearchIndex(tmp_path / name, session_dirs=lambda: m.dirs)
    fresh.update()
    with sqlite3.connect(fresh.folder / INDEX_FILE) as conn:
        rebuilt = sorted(conn.execute("SELECT f.path, c.text, c.segments FROM chunks c "
                                      "JOIN files f ON f.id = c.file_id").fetchall())
    with _db(m) as conn:
        assert sorted(conn.execute("SELECT f.path, c.text, c.segments FROM chunks c JOIN files "
                                   "f ON f.id = c.file_id").fetchall()) == rebuilt


def _append(path: Path, build: Callable[[TranscriptBuilder], None], first_id: int = 500,
            leaf: str = "00000001") -> None:
    """Append what ``build`` adds below ``leaf`` (ids from ``first_id``)."""
    extra = TranscriptBuilder.continuing(path, first_id=first_id, plain_users=True)
    extra.leaf = leaf
    build(extra)
    extra.append_to(path)


def test_an_append_indexes_only_the_new_entries_and_matches_a_rebuild(machine: Machine,
                                                                      tmp_path: Path) -> None:
    machine.index.update()
    path = machine.facts["db"][0]
    ids: list[str] = []

    def grow(b: TranscriptBuilder) -> None:
        ids.append(b.user("Later we moved the replica to rack k7-omega. " + "pad " * 900).id)
        ids.append(b.assistant("Done.").id)

    _append(path, grow)
    stats = machine.index.update()
    assert (stats.indexed, stats.entries_added) == (1, 2)
    assert _top(machine.index, "k7-omega") == (path.resolve(), ids[0])
    _same_as_a_rebuild(machine, tmp_path, "fresh1")
    assert machine.index.update().indexed == 0  # nothing changed: nothing read

    def compact(b: TranscriptBuilder) -> None:  # a compaction needs the whole path: a full load
        ids.append(b.compaction("## Goal\n- replica moved", None).id)
        b.user("and the cache is on 11211")

    _append(path, compact, first_id=600, leaf=ids[1])
    assert machine.index.update().entries_added == 2
    _same_as_a_rebuild(machine, tmp_path, "fresh2")
    hit = machine.index.search("k7-omega").hits[0]
    assert hit.fate.status == "lost" and hit.fate.compaction_id == ids[2]


def test_a_half_written_last_line_waits_until_it_is_complete(machine: Machine) -> None:
    machine.index.update()
    path = machine.facts["error"][0]
    line = json.dumps({"type": "message", "id": "torn0001", "parentId": None,
                       "timestamp": "2026-01-01T01:00:00.000Z",
                       "message": {"role": "user", "content": "the torn fact is wolfram-42"}})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line[:40])
    assert machine.index.update().entries_added == 0
    assert _top(machine.index, "wolfram-42") is None
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line[40:] + "\n")
    assert machine.index.update().entries_added == 1
    assert _top(machine.index, "wolfram-42") == (path.resolve(), "torn0001")


def test_a_rewritten_file_is_reindexed_and_a_deleted_one_dropped(machine: Machine) -> None:
    machine.index.update()
    path, _ = machine.facts["db"]
    _, new_id = openclaw_session(path, "After the rewrite the database is on port 7777.",
                                 turns=6)
    stats = machine.index.update()
    assert stats.indexed == 1 and stats.removed == 0
    assert _top(machine.index, "pgbouncer-eu7") is None
    assert _top(machine.index, "port 7777") == (path.resolve(), new_id)
    machine.facts["error"][0].unlink()
    assert machine.index.update().removed == 1
    assert _top(machine.index, "ECONNRESET") is None
    with _db(machine) as conn:
        assert conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES('integrity-check')")


def test_a_corrupt_index_is_rebuilt_and_keeps_the_added_folders(machine: Machine,
                                                               tmp_path: Path) -> None:
    extra = tmp_path / "elsewhere"
    _, entry = openclaw_session(extra / "x.jsonl", "The staging host is gorilla-17.", turns=4)
    machine.index.add_root(extra)
    machine.index.update()
    assert _top(machine.index, "gorilla-17") is not None
    db = machine.index.folder / INDEX_FILE
    data = bytearray(db.read_bytes())
    data[:100] = b"this is no longer a database" + b"\0" * 72
    db.write_bytes(bytes(data))
    assert machine.index.search("gorilla-17").hits == ()  # rebuilt empty, not an error
    assert machine.index.roots() == [extra.resolve()]
    assert machine.index.update().indexed == 4
    assert _top(machine.index, "gorilla-17") == ((extra / "x.jsonl").resolve(), entry)


def test_damaged_pages_are_rebuilt_too(machine: Machine) -> None:
    machine.index.update()
    db = machine.index.folder / INDEX_FILE
    with _db(machine) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    page = 4096
    for at in range(2 * page, len(data), page):
        data[at:at + 64] = b"\xff" * 64
    db.write_bytes(bytes(data))
    machine.index.update()
    assert _top(machine.index, "zebra_canary_rollout") == (
        machine.facts["cc"][0].resolve(), machine.facts["cc"][1])


def test_an_older_schema_is_rebuilt_from_scratch(machine: Machine) -> None:
    machine.index.update()
    with _db(machine) as conn:
        conn.execute("PRAGMA user_version=0")
        conn.execute("DROP TABLE compactions")
    assert machine.index.update().indexed == 3
    assert _top(machine.index, "pgbouncer-eu7") is not None


_INDEX_IN_A_PROCESS = """
import sys
from pathlib import Path
from sessionlens.engine.search.search_index import SearchIndex
folder, *dirs = sys.argv[1:]
index = SearchIndex(Path(folder), session_dirs=lambda: [Path(d) for d in dirs])
print(index.update().indexed)
"""


def test_two_processes_indexing_at_once_do_not_corrupt_or_duplicate(machine: Machine) -> None:
    for n in range(8):
        openclaw_session(machine.home / f".openclaw/agents/main/sessions/more{n}.jsonl",
                         f"fact number {n} is kiwi{n}x", turns=40)
    argv = [sys.executable, "-c", _INDEX_IN_A_PROCESS, str(machine.index.folder),
            *map(str, machine.dirs)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert sum(int(o) for o in outs) == 11  # every file indexed once, by one of them
    with _db(machine) as conn:
        dupes = conn.execute("SELECT count(*) FROM (SELECT file_id, text FROM chunks "
                             "GROUP BY file_id, text HAVING count(*) > 1)").fetchone()[0]
        assert dupes == 0
        conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES('integrity-check')")
    for n in range(8):
        assert len(machine.index.search(f"kiwi{n}x").hits) == 1


def test_words_found_everywhere_rank_only_the_newest_matches(tmp_path: Path) -> None:
    """BM25 scores every match; a word in most chunks must not cost seconds."""
    from sessionlens.engine.search.search_settings import SearchSettings

    folder = tmp_path / "s"
    folder.mkdir()
    for n in range(6):
        b = TranscriptBuilder(plain_users=True)
        for turn in range(30):
            b.user(f"common words everywhere, file {n} turn {turn}: " + "lorem ipsum " * 40)
        b.write(folder / f"f{n}.jsonl")
    index = SearchIndex(tmp_path / "idx", SearchSettings(rank_cap=20),
                        session_dirs=lambda: [folder])
    index.update()
    capped = index.search("lorem ipsum", limit=50)
    assert capped.notes and "newest" in capped.notes[0]
    assert {h.path.name for h in capped.hits} <= {"f4.jsonl", "f5.jsonl"}  # indexed last
    rare = index.search("\"file 0 turn 3\"")
    assert rare.notes == () and rare.hits[0].path.name == "f0.jsonl"


def test_a_word_inside_cjk_text_is_found_and_a_rewrite_drops_it(machine: Machine) -> None:
    """Chinese and Japanese have no spaces: a word inside a sentence is found (each
    character is spaced out for FTS5, in the planning process), and the rewrite's delete
    of those rows leaves FTS5 consistent (the delete must give the tokens the insert did)."""
    path = machine.home / ".openclaw/agents/main/sessions/cjk.jsonl"
    _, entry = openclaw_session(path, "我们把会话上下文压缩到摘要里。次はキャッシュを消す。")
    machine.index.update()
    assert _top(machine.index, "上下文") == (path.resolve(), entry)
    assert _top(machine.index, "キャッシュ") == (path.resolve(), entry)
    _, later = openclaw_session(path, "重写以后只剩下这一句话。", turns=4)
    assert machine.index.update().indexed == 1
    assert _top(machine.index, "上下文") is None
    assert _top(machine.index, "这一句") == (path.resolve(), later)
    with _db(machine) as conn:
        stale = conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH "
                             "'\"上 下 文\"'").fetchone()[0]
        assert stale == 0  # no FTS row of the old text is left behind
        assert conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES('integrity-check')")


def test_reading_in_worker_processes_gives_the_rows_one_process_does(
        machine: Machine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big first build reads in worker processes (here: any size) while this one writes
    (it plans only the first file itself, while they start); the index holds the same
    chunks, in the same order, as reading in this process."""
    monkeypatch.setattr(plan_pool, "PARALLEL_MIN_BYTES", 0)
    here: list[str] = []
    real = plan_pool.plan_job

    def counted(path: str, *args: object, **kwargs: object) -> object:
        here.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(plan_pool, "plan_job", counted)  # the workers import their own
        stats = machine.index.update(workers=2)
    assert stats.indexed == 3 and stats.problems == ()
    assert len(here) == 1  # the other two were planned by the workers
    serial = SearchIndex(tmp_path / "serial", session_dirs=lambda: machine.dirs)
    serial.update(workers=1)
    query = "SELECT f.path, c.id, c.text, c.segments FROM chunks c JOIN files f ON f.id = c.file_id"
    with _db(machine) as conn, sqlite3.connect(serial.folder / INDEX_FILE) as other:
        assert conn.execute(query).fetchall() == other.execute(query).fetchall()
    cc_path, cc_entry = machine.facts["cc"]
    assert _top(machine.index, "zebra_canary_rollout") == (cc_path.resolve(), cc_entry)


def test_the_writer_plans_files_itself_when_the_readers_fall_behind(
        machine: Machine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files the writer plans while it would wait for the readers are written in their
    turn: the index is the one a single process builds."""
    for n in range(6):
        openclaw_session(machine.home / f".openclaw/agents/main/sessions/extra{n}.jsonl",
                         f"fact number {n} is plum{n}y", turns=20)
    monkeypatch.setattr(plan_pool, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(plan_pool, "PLANS_AHEAD_BYTES", 0)  # one file each in the pool
    monkeypatch.setattr(plan_pool, "STEAL_WAITED", -1.0)  # whenever the next is not ready
    monkeypatch.setattr(plan_pool, "STEAL_AFTER_S", -1.0)
    here: list[str] = []
    real = plan_pool.plan_job

    def counted(path: str, *args: object, **kwargs: object) -> object:
        here.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plan_pool, "plan_job", counted)
    assert machine.index.update(workers=2).indexed == 9
    assert 1 < len(here) <= 7  # the first, and some of the six not handed to the reader
    serial = SearchIndex(tmp_path / "serial", session_dirs=lambda: machine.dirs)
    serial.update(workers=1)
    query = "SELECT f.path, c.id, c.text, c.segments FROM chunks c JOIN files f ON f.id = c.file_id"
    with _db(machine) as conn, sqlite3.connect(serial.folder / INDEX_FILE) as other:
        assert conn.execute(query).fetchall() == other.execute(query).fetchall()
    for n in range(6):
        assert len(machine.index.search(f"plum{n}y").hits) == 1


def test_an_entrys_indexed_text(machine: Machine) -> None:
    machine.index.update()
    path, entry_id = machine.facts["error"]
    text = machine.index.entry_text(path.resolve(), entry_id)
    assert "ECONNRESET from queue-worker-9f3a1c77" in text
    assert "pgbouncer" not in text  # another file's entry
    assert machine.index.entry_text(path.resolve(), "no-such-entry") == ""
