"""``Recall``'s tools in-process on the real samples and on built chains: what each answers,
its bounds, its paging, and that a chain file outside the scope is never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.chains import make_chain
from fixtures.samples import sample_path
from sessionlens.engine.errors import AuditError, ConfigError, ScopeError
from sessionlens.engine.recall.recall_service import MAX_SEARCH_HITS, Recall

#: Sample 03's fact lost at its second compaction (``sessionlens trace`` says so).
LOST_FACT = "missing_brave_api_key"
LOST_AT = "578fa8c6"
FIRST_SEEN = "d9e47ccd"


@pytest.fixture(scope="module")
def recall(samples_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Recall:
    return Recall(tmp_path_factory.mktemp("recall-cache"), [samples_dir])


@pytest.fixture(scope="module")
def s03(samples_dir: Path) -> str:
    return str(sample_path(samples_dir, "03_").resolve())  # answers give resolved paths


def test_search_gives_each_hits_fate(recall: Recall, s03: str) -> None:
    answer = recall.search_sessions(LOST_FACT, limit=5)
    fates = {h.entry_id: h.fate for h in answer.hits if h.path == s03}
    assert fates[FIRST_SEEN].status == "lost"
    assert fates[FIRST_SEEN].text == f"lost at compaction {LOST_AT} (missing: {LOST_FACT})"
    assert fates["c87501e6"].text == "not compacted yet"
    assert all(LOST_FACT in h.snippet for h in answer.hits)


def test_search_bounds_and_filters(recall: Recall) -> None:
    assert len(recall.search_sessions("the", limit=500).hits) <= MAX_SEARCH_HITS
    assert recall.search_sessions(LOST_FACT, agent="codex").hits == ()
    assert recall.search_sessions(LOST_FACT, since="2030-01-01").hits == ()
    with pytest.raises(ConfigError, match="not a date"):
        recall.search_sessions(LOST_FACT, since="last week")


def test_overview_of_sample_03(recall: Recall, s03: str) -> None:
    o = recall.session_overview(Path(s03).name)  # by file name
    assert o.path == s03
    assert (o.model, o.compaction_count, o.format) == ("MiniMax-M2.1", 5, "openclaw-v3")
    assert o.memory_health == "critical"
    assert sorted(c.number for c in o.compactions) == [1, 2, 3, 4, 5]
    assert {c.compaction_id: c.dropped for c in o.compactions}[LOST_AT] == 3


def test_trace_names_the_compaction_that_lost_it(recall: Recall, s03: str) -> None:
    t = recall.trace_fact(s03, LOST_FACT)
    assert t.lost_at == f"compaction 2 ({LOST_AT})" and t.lost_at_compaction_id == LOST_AT
    assert "lost at compaction 2" in t.answer
    assert t.mentions[0].entry_id == FIRST_SEEN and t.mentions_total == 3
    assert [c.status for c in t.compactions][:2] == ["kept", "dropped"]


def test_dropped_by_a_compaction_and_its_original_text(recall: Recall, s03: str) -> None:
    d = recall.compaction_dropped(s03, LOST_AT)
    assert (d.number, d.total_loss, d.dropped_total) == (2, True, 3)
    fact = next(f for f in d.dropped if f.value == LOST_FACT)
    assert fact.cls == "error" and fact.entry_ids == (FIRST_SEEN,)
    text = recall.original_text(s03, list(fact.entry_ids))
    assert text.path == s03 and text.next_offset is None
    assert f'"error": "{LOST_FACT}"' in text.text
    assert text.text.startswith(f"--- entry {FIRST_SEEN} (toolResult, ")
    assert recall.compaction_dropped(s03).compaction_id == "ebd26702"  # default: the last
    with pytest.raises(AuditError):
        recall.compaction_dropped(s03, "no-such-id")


def test_original_text_pages_join_to_the_whole(recall: Recall, s03: str) -> None:
    ids = [FIRST_SEEN, "ce187b42", "c87501e6", "not-an-entry"]
    whole = recall.original_text(s03, ids, max_chars=100_000)
    assert whole.not_found == ("not-an-entry",) and len(whole.entries) == 3
    assert len(whole.text) == whole.total_chars <= 20_000  # the page size is capped
    pages, offset = [], 0
    while True:
        page = recall.original_text(s03, ids, offset=offset, max_chars=250)
        assert len(page.text) <= 250
        pages.append(page.text)
        if page.next_offset is None:
            break
        offset = page.next_offset
    assert "".join(pages) == whole.text and len(pages) == -(-whole.total_chars // 250)


def test_sessions_outside_the_scope_are_refused(recall: Recall, samples_dir: Path,
                                                tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text((sample_path(samples_dir, "04_")).read_text(encoding="utf-8"),
                       encoding="utf-8")
    for name in (str(outside), f"{samples_dir}/../{outside.name}", "../../etc/passwd",
                 "no-such-session-id"):
        with pytest.raises(ScopeError):
            recall.session_overview(name)
    listed = recall.list_sessions(limit=100)
    assert listed.total >= 6 and all(s.path.startswith(str(samples_dir.resolve())) for s in
                                     listed.sessions)


def test_a_chain_is_traced_only_inside_the_scope(tmp_path: Path) -> None:
    (tmp_path / "chain").mkdir()
    files = make_chain(tmp_path / "chain", depth=3)
    whole = Recall(tmp_path / "cache", [files.folder])
    last = str(files.transcripts[-1])
    assert len(whole.trace_fact(last, "/src/app/mod1.py").files) == len(files.transcripts)
    alone = Recall(tmp_path / "cache", [files.transcripts[-1]])  # a root may be one file
    t = alone.trace_fact(last, "/src/app/mod1.py")
    assert t.files == (last,)
    with pytest.raises(ScopeError):
        alone.session_overview(str(files.transcripts[0]))


def test_the_default_scope_is_the_agents_folders_and_the_searchs(tmp_path: Path,
                                                                 samples_dir: Path) -> None:
    from sessionlens.engine.search.roots import add_root
    from sessionlens.engine.search.search_index import search_index_dir

    agents = tmp_path / "agents"
    agents.mkdir()
    add_root(search_index_dir(tmp_path / "cache"), samples_dir)
    recall = Recall(tmp_path / "cache", default_dirs=lambda: [agents])
    assert recall.scope.roots == (agents.resolve(), samples_dir.resolve())
    assert recall.index.session_dirs() == [agents, samples_dir.resolve()]


def test_warming_the_index_builds_it_before_the_first_search(tmp_path: Path) -> None:
    (tmp_path / "chain").mkdir()
    files = make_chain(tmp_path / "chain", depth=2)
    recall = Recall(tmp_path / "cache", [files.folder])
    assert recall.index.summary().files == 0
    recall.warm_index()
    assert recall.index.summary().files >= len(files.transcripts)
    assert recall.search_sessions("mod1.py").notes == ()
