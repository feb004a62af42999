""""Was it kept?": a hit replaced by a compaction is kept only while every summary carries it."""

from __future__ import annotations

from pathlib import Path

from fixtures.factories import TranscriptBuilder, structured_summary
from sessionlens.engine.search.fate import RecordedCompaction, hit_fate, query_words
from sessionlens.engine.search.search_index import SearchIndex


def _session(tmp: Path, first: str, second: str) -> tuple[Path, dict[str, str]]:
    b = TranscriptBuilder(plain_users=True)
    ids = {"old": b.user("The signing key lives in /etc/keys/ledger-v2.pem, rotate it on "
                         "the 1st.").id}
    b.assistant("Noted the key location.")
    ids["keep1"] = b.user("Let us continue with the parser.").id
    ids["c1"] = b.compaction(structured_summary(first), ids["keep1"]).id
    b.assistant("Parser work continues.")
    ids["keep2"] = b.user("Now the exporter, and the port is 9443.").id
    ids["c2"] = b.compaction(structured_summary(second), ids["keep2"]).id
    ids["new"] = b.user("The ledger-v2.pem question is settled now.").id
    (tmp / "s").mkdir(parents=True)
    return b.write(tmp / "s" / "fate.jsonl"), ids


def _fate(tmp: Path, first: str, second: str, query: str) -> dict[str, object]:
    path, ids = _session(tmp, first, second)
    index = SearchIndex(tmp / "idx", session_dirs=lambda: [path.parent])
    index.update()
    hits = {h.entry_id: h.fate for h in index.search(query, limit=10).hits}
    return {name: hits.get(entry) for name, entry in ids.items()} | {"ids": ids}


def test_a_fact_every_summary_carries_is_kept(tmp_path: Path) -> None:
    got = _fate(tmp_path, "- key: /etc/keys/ledger-v2.pem", "- key at /etc/keys/ledger-v2.pem",
                "ledger-v2.pem")
    ids = got["ids"]
    assert isinstance(ids, dict)
    fate = got["old"]
    assert fate is not None and fate.status == "kept"  # type: ignore[attr-defined]
    assert fate.compaction_id == ids["c2"]  # type: ignore[attr-defined]
    assert "/etc/keys/ledger-v2.pem" in fate.checked  # type: ignore[attr-defined]
    newer = got["new"]
    assert newer is not None and newer.status == "live"  # type: ignore[attr-defined]


def test_the_first_summary_that_drops_the_fact_is_named(tmp_path: Path) -> None:
    got = _fate(tmp_path, "- key: /etc/keys/ledger-v2.pem", "- the parser and the exporter",
                "ledger-v2.pem")
    ids = got["ids"]
    assert isinstance(ids, dict)
    fate = got["old"]
    assert fate is not None and fate.status == "lost"  # type: ignore[attr-defined]
    assert fate.compaction_id == ids["c2"]  # type: ignore[attr-defined]
    assert fate.missing == ("/etc/keys/ledger-v2.pem",)  # type: ignore[attr-defined]
    got = _fate(tmp_path / "again", "- nothing about keys", "- nor here", "ledger-v2.pem")
    ids = got["ids"]
    assert isinstance(ids, dict)
    assert got["old"].compaction_id == ids["c1"]  # type: ignore[union-attr]


def test_plain_words_are_checked_when_no_identifier_matches() -> None:
    c = RecordedCompaction("c1", None, "We chose PostgreSQL for billing.", frozenset({"e1"}))
    assert hit_fate("e1", "we picked postgresql over mysql", ["where", "postgresql"],
                    [c]).status == "kept"
    lost = hit_fate("e1", "we picked postgresql over mysql", ["mysql"], [c])
    assert (lost.status, lost.missing) == ("lost", ("mysql",))
    assert hit_fate("e1", "no query word here", ["banana"], [c]).status == "unchecked"
    assert hit_fate("e9", "anything", ["mysql"], [c]).status == "live"
    assert query_words(["the", "did", "we", "5", "db", "postgres"]) == ("5", "postgres")


def test_a_fact_in_the_tail_one_compaction_kept_is_lost_at_the_next(tmp_path: Path) -> None:
    """The first compaction kept the fact verbatim; the second took it out of the context
    and its summary does not carry it (what the trace and the audit say too)."""
    b = TranscriptBuilder(plain_users=True)
    b.user("Start the work.")
    tail = b.user("The canary host is edge-7f3a91.example.net, watch it.").id
    b.assistant("Watching the canary host.")
    first = b.compaction(structured_summary("- started"), tail).id
    b.assistant("More work.")
    keep = b.user("Next, the exporter.").id
    second = b.compaction(structured_summary("- exporter next"), keep).id
    (tmp_path / "s").mkdir()
    path = b.write(tmp_path / "s" / "tail.jsonl")
    index = SearchIndex(tmp_path / "idx", session_dirs=lambda: [path.parent])
    index.update()
    fates = {h.entry_id: h.fate for h in index.search("edge-7f3a91.example.net").hits}
    assert fates[tail].status == "lost" and fates[tail].compaction_id == second != first
    assert fates[tail].missing == ("edge-7f3a91.example.net",)


def test_search_and_trace_agree_along_the_chain_into_a_successor(tmp_path: Path) -> None:
    """Search said "not compacted yet" for a fact the successor's compaction lost, while
    trace on the same file said "lost at compaction 1" (issue 39 item 6)."""
    from sessionlens.engine.lineage.chain import load_chain_transcripts
    from sessionlens.engine.lineage.trace import trace_fact
    from sessionlens.engine.load.reader import load_transcript
    from sessionlens.engine.persist.record import CompactionRecord
    from sessionlens.engine.persist.writer import write_compaction

    b = TranscriptBuilder(plain_users=True)
    old = b.user("Use the accent colour #b5bd68 for every heading.").id
    b.assistant("Noted the accent colour.")
    b.user("Now write the changelog.")
    b.assistant("Writing it.")
    keep = b.user("And bump the version.").id
    b.assistant("Bumped.")
    (tmp_path / "s").mkdir()
    path = b.write(tmp_path / "s" / "orig.jsonl")
    record = CompactionRecord(structured_summary("- the changelog is written"), keep, 500)
    written = write_compaction(load_transcript(path), record, "successor", store_path=None)
    assert written.compaction_entry_id is not None
    traced = trace_fact(load_chain_transcripts(path)[0], "b5bd68")
    assert traced.lost_at is not None
    assert traced.lost_at.compaction_id == written.compaction_entry_id
    index = SearchIndex(tmp_path / "idx", session_dirs=lambda: [path.parent])
    index.update()
    hits = [h for h in index.search("b5bd68", limit=10).hits if h.entry_id == old]
    assert hits and {h.fate.status for h in hits} == {"lost"}
    assert {h.fate.compaction_id for h in hits} == {traced.lost_at.compaction_id}
