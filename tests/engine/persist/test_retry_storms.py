"""Retry storms: unanswered copies of a long prompt resent within the window are left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixtures.factories import TranscriptBuilder
from fixtures.written import read_rows
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import ImageBlock, Message, TextBlock
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.retry_storms import (
    MIN_RETRY_CHARS,
    RETRY_WINDOW_MS,
    find_retry_copies,
)
from sessionlens.engine.persist.writer import write_compaction, write_successor

ASK = "please summarise the quarterly report for the board"  # 50 characters


def _user(b: TranscriptBuilder, text: str, at_s: float, image: bool = False) -> str:
    blocks: tuple[Any, ...] = (TextBlock(text),)
    if image:
        blocks += (ImageBlock("image/png", "AAAA"),)
    return b.message(Message(role="user", content=blocks, timestamp_ms=int(at_s * 1000))).id


def _fail(b: TranscriptBuilder, reason: str = "error") -> str:
    return b.assistant("", stop_reason=reason, error_message="503 service unavailable").id


def test_failed_copies_go_and_the_answered_one_stays() -> None:
    b = TranscriptBuilder()
    first = _user(b, ASK, 0)
    err1 = _fail(b)
    second = _user(b, "  please summarise the quarterly\nreport for the board ", 20)
    err2 = _fail(b, "aborted")
    kept = _user(b, ASK, 50)
    b.assistant("Here is the summary.")
    copies = find_retry_copies(b.build())
    assert [(c.entry_id, c.reply_entry_ids, c.outcome) for c in copies] == [
        (first, (err1,), "error"), (second, (err2,), "aborted")]
    assert {c.kept_entry_id for c in copies} == {kept}
    assert [c.gap_ms for c in copies] == [20_000, 30_000] and copies[0].chars == len(ASK)
    assert copies[0].dropped_ids == (first, err1) and copies[0].preview == ASK


def test_the_window_is_between_neighbouring_copies() -> None:
    b = TranscriptBuilder()
    _user(b, ASK, 0)
    _fail(b)
    late = _user(b, ASK, RETRY_WINDOW_MS / 1000 + 1)  # more than a minute later: a new ask
    _fail(b)
    _user(b, ASK, RETRY_WINDOW_MS / 1000 + 30)
    b.assistant("done")
    assert [c.entry_id for c in find_retry_copies(b.build())] == [late]


def test_short_prompts_images_and_answered_turns_are_never_copies() -> None:
    b = TranscriptBuilder()
    short = "x" * (MIN_RETRY_CHARS - 1)
    _user(b, short, 0)
    _fail(b)
    _user(b, short, 1)
    b.assistant("ok")
    _user(b, ASK, 2, image=True)
    _fail(b)
    _user(b, ASK, 3, image=True)
    b.assistant("ok")
    _user(b, ASK, 4)
    b.assistant("answered")  # an answer between two copies: the second is a new ask
    _user(b, ASK, 5)
    b.assistant("answered again")
    _user(b, ASK + " again", 6)
    call = b.call("read", path="/x")
    b.assistant("", call)
    b.result(call, "tool ran")  # the prompt got through: not a failed send
    _user(b, ASK + " again", 7)
    b.assistant("ok")
    assert find_retry_copies(b.build()) == ()


def test_when_nothing_was_answered_the_newest_copy_stays() -> None:
    b = TranscriptBuilder()
    first = _user(b, ASK, 0)
    second = _user(b, ASK, 5)  # no reply at all in between
    _fail(b)
    newest = _user(b, ASK, 9)
    _fail(b)
    copies = find_retry_copies(b.build())
    assert [(c.entry_id, c.outcome) for c in copies] == [(first, "no-reply"), (second, "error")]
    assert {c.kept_entry_id for c in copies} == {newest}


def test_a_compaction_between_copies_ends_the_storm_and_after_limits_it() -> None:
    b = TranscriptBuilder()
    _user(b, ASK, 0)
    _fail(b)
    b.compaction("sum")
    _user(b, ASK, 5)
    b.assistant("ok")
    assert find_retry_copies(b.build()) == ()
    b2 = TranscriptBuilder()
    a = _user(b2, ASK, 0)
    _fail(b2)
    _user(b2, ASK, 5)
    b2.assistant("ok")
    assert [c.entry_id for c in find_retry_copies(b2.build())] == [a]
    assert find_retry_copies(b2.build(), after_entry_id=a) == ()  # the first kept stays


def _msg_user(text: str, at_ms: int, sender: str | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "user", "content": text, "timestamp": at_ms}
    if sender is not None:
        msg["__openclaw"] = {"senderId": sender}
    return msg


def _msg_error(at_ms: int) -> dict[str, Any]:
    return {"role": "assistant", "content": [], "api": "x", "provider": "p", "model": "m",
            "stopReason": "error", "errorMessage": "503 overloaded", "timestamp": at_ms,
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}}


def _storm_file(folder: Path, senders: tuple[str | None, str | None] = (None, None)
                ) -> tuple[Path, dict[str, str]]:
    b = TranscriptBuilder(plain_users=True)
    ids = {"u0": b.user("an early question about the build system").id,
           "a0": b.assistant("an early answer").id}
    ids["u1"] = b.user("now the real work starts here").id
    ids["a1"] = b.assistant("ok").id
    ids["c1"] = b.message(_msg_user(ASK, 1_000, senders[0])).id
    ids["e1"] = b.message(_msg_error(1_500)).id
    ids["c2"] = b.message(_msg_user(ASK, 16_000, senders[1])).id
    ids["a2"] = b.assistant("the summary").id
    return b.write(folder / "s.jsonl"), ids


def _record(first_kept: str, **kw: Any) -> CompactionRecord:
    return CompactionRecord(summary="## Goal\nwork", first_kept_entry_id=first_kept,
                            tokens_before=1000, **kw)


def test_the_successor_leaves_the_storm_out_and_says_so(tmp_path: Path) -> None:
    path, ids = _storm_file(tmp_path)
    t = load_transcript(path)
    result = write_successor(t, _record(ids["u1"]))
    assert result.successor_path is not None
    rows = read_rows(result.successor_path)
    kept = {r.get("id") for r in rows}
    assert ids["c1"] not in kept and ids["e1"] not in kept and ids["c2"] in kept
    by_id = {r.get("id"): r for r in rows}
    assert by_id[ids["c2"]]["parentId"] == ids["a1"]  # re-linked past the dropped copy
    (copy,) = result.dropped_retry_copies
    assert (copy.entry_id, copy.kept_entry_id, copy.reply_entry_ids) == (
        ids["c1"], ids["c2"], (ids["e1"],))
    assert load_transcript(result.successor_path).diagnostics == ()


def test_keep_retry_copies_keeps_them(tmp_path: Path) -> None:
    path, ids = _storm_file(tmp_path)
    result = write_successor(load_transcript(path), _record(ids["u1"], drop_retry_copies=False))
    assert result.successor_path is not None and result.dropped_retry_copies == ()
    kept = {r.get("id") for r in read_rows(result.successor_path)}
    assert {ids["c1"], ids["e1"], ids["c2"]} <= kept


def test_copies_in_the_summarized_part_are_gone_anyway(tmp_path: Path) -> None:
    path, ids = _storm_file(tmp_path)
    result = write_compaction(load_transcript(path), _record(ids["c2"]), store_path=None)
    assert result.dropped_retry_copies == ()  # c1 was summarized: nothing extra to drop


def test_different_senders_are_not_copies(tmp_path: Path) -> None:
    path, ids = _storm_file(tmp_path, senders=("alice", "bob"))
    result = write_successor(load_transcript(path), _record(ids["u1"]))
    assert result.dropped_retry_copies == ()
    (tmp_path / "same").mkdir()
    path, ids = _storm_file(tmp_path / "same", senders=("alice", "alice"))
    result = write_successor(load_transcript(path), _record(ids["u1"]))
    assert [c.entry_id for c in result.dropped_retry_copies] == [ids["c1"]]
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[5])["message"][
        "__openclaw"]["senderId"] == "alice"


def test_sender_ids_are_read_only_for_prompts_that_repeat(tmp_path: Path) -> None:
    """Reading every prompt's source line re-read the whole file on each plan; the sender
    only decides between two copies of the same text, so only those lines are read."""
    b = TranscriptBuilder(plain_users=True)
    ids = {"long": b.message(_msg_user("a different long prompt, asked once: " + ASK, 100)).id}
    b.assistant("answered")
    ids["c1"] = b.message(_msg_user(ASK, 1_000, "alice")).id
    b.message(_msg_error(1_500))
    ids["c2"] = b.message(_msg_user(ASK, 16_000, "alice")).id
    b.assistant("the summary")
    t = load_transcript(b.write(tmp_path / "s.jsonl"))
    read: list[str] = []

    def raw_line(entry: Any) -> bytes:
        read.append(entry.id)
        return t.raw_line(entry)

    (copy,) = find_retry_copies(t, raw_line=raw_line)
    assert copy.entry_id == ids["c1"]
    assert sorted(read) == sorted([ids["c1"], ids["c2"]])  # not the other long prompts
