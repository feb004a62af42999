"""Following the journal: new whole lines only, once each; which compaction a line is about."""

from __future__ import annotations

from pathlib import Path

from fixtures.scenarios import memory_session
from sessionlens.engine.integrate.journal import JournalEntry, append_entry, journal_path
from sessionlens.engine.integrate.journal_tail import (
    journal_compaction_id,
    journal_end,
    read_journal_since,
)
from sessionlens.engine.load.reader import load_transcript


def test_reads_whole_new_lines_once(tmp_path: Path) -> None:
    assert read_journal_since(tmp_path).offset == 0 == journal_end(tmp_path)  # no journal yet
    append_entry(tmp_path, JournalEntry("pi", "a", "threshold", "sessionlens"))
    first = read_journal_since(tmp_path)
    assert [e.session for e in first.entries] == ["a"]
    assert read_journal_since(tmp_path, first.offset).entries == ()
    path = journal_path(tmp_path)
    with path.open("ab") as f:                                # a line being written
        f.write(b'{"agent": "codex", "session": "b"')
    half = read_journal_since(tmp_path, first.offset)
    assert journal_end(tmp_path) == first.offset == half.offset
    assert half.entries == () and half.offset == first.offset
    with path.open("ab") as f:
        f.write(b', "trigger": "auto"}\nnot json\n')
    done = read_journal_since(tmp_path, half.offset)
    assert [e.session for e in done.entries] == ["b"] and len(done.problems) == 1
    path.write_text("")                                       # replaced: read from the start
    append_entry(tmp_path, JournalEntry("pi", "c", "threshold", "agent"))
    assert [e.session for e in read_journal_since(tmp_path, done.offset).entries] == ["c"]


def test_compaction_a_line_is_about(tmp_path: Path) -> None:
    path, ids = memory_session(tmp_path)
    t = load_transcript(path)
    named = JournalEntry("codex", "s", "auto", "agent", extra={"compaction_id": ids["good"]})
    assert journal_compaction_id(named, t) == ids["good"]
    stamps = {i: t.entry(i).timestamp for i in (ids["good"], ids["lost"])}
    assert all(stamps.values())
    # written just before the "lost" compaction (pi writes its entry after our answer)
    before_lost = JournalEntry("pi", "s", "threshold", "sessionlens", at=stamps[ids["good"]]
                               or "")
    assert journal_compaction_id(before_lost, t) == ids["good"]
    late = JournalEntry("claude-code", "s", "auto", "agent", at="2999-01-01T00:00:00.000Z")
    assert journal_compaction_id(late, t) == ids["lost"]
    stale = JournalEntry("codex", "s", "auto", "agent", extra={"compaction_id": "nope"},
                         at="2999-01-01T00:00:00.000Z")
    assert journal_compaction_id(stale, t) == ids["lost"]
