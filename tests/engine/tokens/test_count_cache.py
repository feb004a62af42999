"""The persistent count cache: keyed by content, grown files, deletion, bad folders, writers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.tokens.count_cache import FILE_NAME, CountCache, text_key
from sessionlens.engine.tokens.counts import (
    count_context_tokens,
    count_tokens,
    entry_count_text,
    get_encoding,
)


def _session(turns: int, *, edit: str | None = None) -> TranscriptBuilder:
    """``turns`` user/assistant/tool turns with distinct texts; ``edit`` replaces turn 1's."""
    s = TranscriptBuilder()
    for i in range(turns):
        s.user(edit if (edit is not None and i == 1) else f"question {i}: why is {i} odd?")
        call = s.call("read", call_id=f"call_{i}", path=f"f{i}")
        s.assistant(f"answer {i}", call)
        s.result(call, f"contents of f{i} " * (i + 1))
    return s


def _distinct_texts(path: Path) -> int:
    t = load_transcript(path)
    return len({entry_count_text(e) for e in t.entries} - {""})


def test_a_second_open_tokenizes_nothing_and_agrees(tmp_path: Path) -> None:
    path = _session(6).write(tmp_path / "s.jsonl")
    first = count_tokens(load_transcript(path), cache=CountCache.in_folder(tmp_path / "c"))
    assert first.tokenized == _distinct_texts(path) and first.cached == 0
    # a new cache object on the same folder is what the next process sees
    again = count_tokens(load_transcript(path), cache=CountCache.in_folder(tmp_path / "c"))
    assert again.tokenized == 0 and again.cached == first.tokenized
    assert again == first  # every per-entry count and total


def test_a_changed_text_is_counted_again_never_served_stale(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    path = _session(5).write(tmp_path / "s.jsonl")
    count_tokens(load_transcript(path), cache=CountCache.in_folder(folder))
    new_text = "the same entry id on the same line, with other words in it"
    _session(5, edit=new_text).write(path)  # ids and line numbers unchanged
    t = load_transcript(path)
    report = count_tokens(t, cache=CountCache.in_folder(folder))
    assert report.tokenized == 1
    changed = next(e for e in t.entries if entry_count_text(e) == new_text)
    assert report.entries[changed.id].exact == len(
        get_encoding("o200k_base").encode_ordinary(new_text))


def test_a_grown_file_counts_only_its_new_entries(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    s = _session(4)
    path = s.write(tmp_path / "s.jsonl")
    count_tokens(load_transcript(path), cache=CountCache.in_folder(folder))
    s.user("a new question after the reload")
    s.assistant("a new answer")
    s.write(path)
    report = count_tokens(load_transcript(path), cache=CountCache.in_folder(folder))
    assert report.tokenized == 2


def test_each_encoding_has_its_own_counts(tmp_path: Path) -> None:
    cache = CountCache.in_folder(tmp_path / "c")
    path = _session(3).write(tmp_path / "s.jsonl")
    o200k = count_tokens(load_transcript(path), "o200k_base", cache=cache)
    cl100k = count_tokens(load_transcript(path), "cl100k_base", cache=cache)
    assert cl100k.tokenized == o200k.tokenized > 0
    enc = get_encoding("cl100k_base")
    t = load_transcript(path)
    for e in t.entries:
        assert cl100k.entries[e.id].exact == len(enc.encode_ordinary(entry_count_text(e)))


def test_a_deleted_cache_only_costs_a_recount(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    path = _session(4).write(tmp_path / "s.jsonl")
    first = count_tokens(load_transcript(path), cache=CountCache.in_folder(folder))
    for p in folder.iterdir():
        p.unlink()
    cache = CountCache.in_folder(folder)
    again = count_tokens(load_transcript(path), cache=cache)
    assert cache.persistent and again.tokenized == first.tokenized and again == first


def test_a_corrupt_cache_file_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(b"this is not a database" * 100)
    cache = CountCache.in_folder(folder)
    assert cache.persistent and cache.note is None
    cache.store("enc", {text_key("x"): 3})
    assert CountCache.in_folder(folder).lookup("enc", [text_key("x")]) == {text_key("x"): 3}


def test_an_unwritable_folder_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")  # a folder cannot be made under it, even by root
    path = _session(3).write(tmp_path / "s.jsonl")
    cache = CountCache.in_folder(blocker / "cache")
    assert not cache.persistent and cache.note and "memory" in cache.note
    t = load_transcript(path)
    first = count_tokens(t, cache=cache)
    assert first.tokenized == _distinct_texts(path)
    enc = get_encoding("o200k_base")
    assert first.exact_total == sum(len(enc.encode_ordinary(entry_count_text(e)))
                                    for e in t.entries)
    # still remembered for this process
    assert count_tokens(load_transcript(path), cache=cache).tokenized == 0


@pytest.mark.skipif(sys.platform == "win32" or not hasattr(__import__("os"), "geteuid")
                    or __import__("os").geteuid() == 0, reason="root ignores permissions")
def test_a_read_only_cache_folder_is_read_but_not_written(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    CountCache.in_folder(folder).store("enc", {text_key("kept"): 7})
    folder.chmod(0o500)
    try:
        cache = CountCache.in_folder(folder)
        assert not cache.persistent
        assert cache.lookup("enc", [text_key("kept")]) == {text_key("kept"): 7}
        cache.store("enc", {text_key("new"): 1})
        assert cache.lookup("enc", [text_key("new")]) == {text_key("new"): 1}
    finally:
        folder.chmod(0o700)


_WRITER = """
import sys
from sessionlens.engine.tokens.count_cache import CountCache, text_key
folder, me = sys.argv[1], int(sys.argv[2])
cache = CountCache.in_folder(folder)
keys = range(me * 500, me * 500 + 1000)       # half of each writer's keys are the next one's
for start in range(0, 1000, 50):              # many small transactions, interleaved
    cache.store("enc", {text_key(str(k)): k for k in keys[start:start + 50]})
found = cache.lookup("enc", [text_key(str(k)) for k in keys])
print(cache.persistent, cache.note, len(found), all(found[text_key(str(k))] == k for k in keys))
"""


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(folder), str(i)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(4)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[1] for o in outs]
    assert [o[0].split() for o in outs] == [["True", "None", "1000", "True"]] * 4
    every = range(0, 4 * 500 + 500)
    found = CountCache.in_folder(folder).lookup("enc", [text_key(str(k)) for k in every])
    assert len(found) == len(every) and all(found[text_key(str(k))] == k for k in every)


def test_threads_share_one_cache(tmp_path: Path) -> None:
    import threading

    cache = CountCache.in_folder(tmp_path / "c")
    errors: list[BaseException] = []

    def work(me: int) -> None:
        try:
            for k in range(200):
                cache.store("enc", {text_key(f"{me}-{k}"): k})
                assert cache.lookup("enc", [text_key(f"{me}-{k}")]) == {text_key(f"{me}-{k}"): k}
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and cache.persistent


def test_the_context_count_needs_only_the_context(tmp_path: Path) -> None:
    """Texts outside the replayed context are not tokenized by the context-first count."""
    s = _session(6)
    s.compaction("what happened so far", None)  # nothing kept: context = summary + after
    s.user("what now?")
    path = s.write(tmp_path / "s.jsonl")
    t = load_transcript(path)
    report = count_context_tokens(t, cache=CountCache.in_folder(tmp_path / "c"))
    assert report.tokenized == len(t.context) == 2
    assert report.scope == "context" and report.pending == len(t.entries) - 2
