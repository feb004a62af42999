"""Token accounting: both estimators, exact counts, context totals, series (the tokenizer's
own data is in test_tokenizer, its threads in test_text_counter)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionlens.engine.errors import ConfigError, LoadCancelled
from sessionlens.engine.model import (
    ContextItem,
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
    Usage,
)
from sessionlens.engine.tokens import text_counter
from sessionlens.engine.tokens.counts import (
    EXACT_IMAGE_TOKENS,
    context_series,
    count_tokens,
    entry_count_text,
    estimate_entry_tokens,
    estimate_message_chars,
    get_encoding,
)

# --------------------------------------------------------------------------- builders

def msg_entry(eid: str, msg: Message, parent: str | None = None) -> Entry:
    return Entry(type="message", id=eid, parent_id=parent, timestamp=None, line=1, message=msg)


def user(text: str, *images: ImageBlock) -> Message:
    return Message(role="user", content=(TextBlock(text), *images))


def assistant(*blocks: Any, usage: Usage | None = None, stop: str = "stop",
              error: str | None = None) -> Message:
    return Message(role="assistant", content=tuple(blocks), usage=usage, stop_reason=stop,
                   error_message=error)


def tool_result(text: str, *images: ImageBlock) -> Message:
    return Message(role="toolResult", content=(TextBlock(text), *images), tool_call_id="c1",
                   tool_name="read")


IMG = ImageBlock(mime_type="image/png", data="iVBORw0KGgo=")


def chain(entries: Sequence[Entry]) -> list[Entry]:
    """Link entries parent -> child in the given order."""
    out: list[Entry] = []
    parent = None
    for e in entries:
        out.append(Entry(**{**{f: getattr(e, f) for f in e.__dataclass_fields__},
                            "parent_id": parent}))
        parent = e.id
    return out


def transcript(entries: Sequence[Entry], context_ids: Sequence[str] | None = None) -> Transcript:
    """A linear transcript; the replayed context is given explicitly (default: every entry
    that the model sees, in order) so these tests do not depend on the tree code."""
    linked = chain(entries)
    ids = tuple(e.id for e in linked)
    if context_ids is None:
        context_ids = [e.id for e in linked if e.type in ("message", "compaction",
                                                         "branch_summary", "custom_message")]
    by_id = {e.id: e for e in linked}
    kinds = {"message": "message", "compaction": "compaction_summary",
             "branch_summary": "branch_summary", "custom_message": "custom_message"}
    context = tuple(ContextItem(kinds[by_id[i].type], i, by_id[i].role or "user")  # type: ignore[arg-type]
                    for i in context_ids)
    return Transcript(path=Path("/t.jsonl"), format="openclaw-v3", header=None,
                      entries=tuple(linked), index={e.id: n for n, e in enumerate(linked)},
                      leaf_id=ids[-1] if ids else None, active_path=ids, context=context,
                      labels={}, session_name=None, diagnostics=())


# --------------------------------------------------------------------------- encodings

def test_unknown_encoding_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="p50k_base.*o200k_base"):
        get_encoding("p50k_base")
    with pytest.raises(ConfigError):
        count_tokens(transcript([msg_entry("a", user("x"))]), "nope")


def test_endoftext_in_text_is_plain_text() -> None:
    text = "before <|endoftext|> after"
    t = transcript([msg_entry("a", user(text))])
    report = count_tokens(t, "cl100k_base")
    enc = get_encoding("cl100k_base")
    assert report.entries["a"].exact == len(enc.encode_ordinary(text))
    assert 100257 not in enc.encode_ordinary(text)


# --------------------------------------------------------------------------- estimates

def test_pi_rules_per_role() -> None:
    call = ToolCallBlock(id="c1", name="read", arguments={"path": "/a.py", "n": 1})
    # user: text only, images free
    assert estimate_message_chars(user("x" * 10, IMG)) == 10
    # toolResult: images 4800 chars each
    assert estimate_message_chars(tool_result("y" * 8, IMG, IMG)) == 8 + 9600
    # assistant: text + thinking + name + compact JSON of the arguments
    a = assistant(TextBlock("hi"), ThinkingBlock("think"), call)
    assert estimate_message_chars(a) == 2 + 5 + 4 + len('{"path":"/a.py","n":1}')
    bash = Message(role="bashExecution", command="ls", output="a\nb")
    assert estimate_message_chars(bash) == 5
    assert estimate_entry_tokens(msg_entry("b", bash)) == 2


def test_pi_counts_utf16_units_like_javascript() -> None:
    assert estimate_message_chars(user("😀😀")) == 4
    assert estimate_message_chars(user("é")) == 1


def test_openclaw_rules() -> None:
    # openclaw 2026.9.6 estimateStringChars: common CJK, Hangul and full-width forms weigh 4
    # chars; Latin text is unchanged
    assert estimate_message_chars(user("日本語"), "openclaw") == 12
    assert estimate_message_chars(user("한국"), "openclaw") == 8
    assert estimate_message_chars(user("ＡＢ"), "openclaw") == 8
    assert estimate_message_chars(user("abc"), "openclaw") == 3
    assert estimate_message_chars(user("·"), "openclaw") == 4  # U+00B7 counts as common
    # rare BMP ideographs (extension A, Yi) weigh 12, half-width and spacing forms 8
    assert estimate_message_chars(user("\u3400"), "openclaw") == 12
    assert estimate_message_chars(user("\uff71"), "openclaw") == 8
    # supplementary ideographs are 2 UTF-16 units plus 14
    assert estimate_message_chars(user("\U00020000"), "openclaw") == 16
    assert estimate_message_chars(user("é😀"), "openclaw") == 3  # unweighted: UTF-16 length
    # images cost 2000 tokens even in user messages, plus the omission marker
    chars = estimate_message_chars(user("abcd", IMG), "openclaw")
    marker = len("[image data omitted from summary input]") + len("\n\n[Tool result]: ")
    assert chars == 4 + 8000 + marker
    # blocks are joined with a newline
    two = Message(role="user", content=(TextBlock("ab"), TextBlock("cd")))
    assert estimate_message_chars(two, "openclaw") == 5
    assert estimate_message_chars(two, "pi") == 4
    excluded = Message(role="bashExecution", command="ls", output="x" * 40,
                       exclude_from_context=True)
    assert estimate_message_chars(excluded, "openclaw") == 0
    assert estimate_message_chars(excluded, "pi") == 42


def test_non_message_entries() -> None:
    comp = Entry(type="compaction", id="c", parent_id=None, timestamp=None, line=1,
                 summary="s" * 9, first_kept_entry_id="a")
    custom = Entry(type="custom_message", id="m", parent_id=None, timestamp=None, line=1,
                   content=(TextBlock("q" * 12), IMG))
    label = Entry(type="label", id="l", parent_id=None, timestamp=None, line=1,
                  target_id="c", label="x" * 100)
    assert estimate_entry_tokens(comp) == 3
    assert estimate_entry_tokens(custom) == math.ceil((12 + 4800) / 4)
    assert estimate_entry_tokens(label) == 0 and entry_count_text(label) == ""
    with pytest.raises(ValueError):
        estimate_entry_tokens(comp, rules="bogus")  # type: ignore[arg-type]


def test_count_text_serializes_what_pi_estimates() -> None:
    call = ToolCallBlock(id="c1", name="bash", arguments={"command": "ls -la"})
    a = msg_entry("a", assistant(TextBlock("Let me look."), ThinkingBlock("plan"), call))
    assert entry_count_text(a) == 'Let me look.\nplan\nbash\n{"command":"ls -la"}'
    bash = msg_entry("b", Message(role="bashExecution", command="pwd", output="/root"))
    assert entry_count_text(bash) == "pwd\n/root"
    assert entry_count_text(msg_entry("c", user("hi", IMG))) == "hi"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200), st.text(max_size=200))
def test_estimates_grow_with_text(a: str, b: str) -> None:
    for rules in ("pi", "openclaw"):
        shorter = estimate_entry_tokens(msg_entry("x", user(a)), rules)
        longer = estimate_entry_tokens(msg_entry("x", user(a + b)), rules)
        assert longer >= shorter
    pi = estimate_entry_tokens(msg_entry("x", user(a)), "pi")
    assert pi == math.ceil(len(a.encode("utf-16-le")) / 2 / 4)
    assert estimate_entry_tokens(msg_entry("x", user(a)), "openclaw") >= pi


# --------------------------------------------------------------------------- count_tokens

def _session() -> tuple[Transcript, dict[str, Entry]]:
    e = {
        "u1": msg_entry("u1", user("first question " * 20)),
        "a1": msg_entry("a1", assistant(TextBlock("answer"), usage=Usage(
            input=900, output=100, total_tokens=1000))),
        "c1": Entry(type="compaction", id="c1", parent_id=None, timestamp=None, line=1,
                    summary="summary of the start " * 5, first_kept_entry_id="a1",
                    tokens_before=1000),
        "u2": msg_entry("u2", user("second " * 30, IMG)),
        "a2": msg_entry("a2", assistant(TextBlock("ok"), usage=Usage(
            input=5, output=5, total_tokens=1500, context_usage=1400))),
        "r1": msg_entry("r1", tool_result("result text " * 10, IMG)),
        "a3": msg_entry("a3", assistant(usage=Usage(input=9999, total_tokens=9999),
                                        stop="error", error="overloaded")),
        "u3": msg_entry("u3", user("third")),
    }
    order = ["u1", "a1", "c1", "u2", "a2", "r1", "a3", "u3"]
    ctx = ["c1", "a1", "u2", "a2", "r1", "a3", "u3"]
    return transcript([e[k] for k in order], ctx), e


def test_report_totals() -> None:
    t, e = _session()
    report = count_tokens(t, "o200k_base")
    enc = get_encoding("o200k_base")

    def exact(eid: str) -> int:
        text = entry_count_text(t.entry(eid))
        message = t.entry(eid).message
        images = sum(isinstance(b, ImageBlock) for b in (message.content if message else ()))
        return len(enc.encode_ordinary(text)) + images * EXACT_IMAGE_TOKENS

    # a3 is an error turn: skipped; a2 has contextUsage, which wins over totalTokens.
    assert report.reported_context == 1400 and report.reported_entry_id == "a2"
    after = [estimate_entry_tokens(t.entry(i)) for i in ("r1", "a3", "u3")]
    assert report.estimate_context == 1400 + sum(after)
    assert report.exact_context == sum(exact(i) for i in ["c1", "a1", "u2", "a2", "r1", "a3", "u3"])
    assert report.exact_total == sum(exact(x.id) for x in t.entries)
    assert report.by_type["compaction"] == exact("c1")
    assert report.by_role["user"] == exact("u1") + exact("u2") + exact("u3")
    assert report.entries["u2"].estimate_pi == estimate_entry_tokens(e["u2"])
    assert report.entries["u2"].estimate_openclaw == estimate_entry_tokens(e["u2"], "openclaw")
    with pytest.raises(TypeError):
        report.entries["x"] = report.entries["u1"]  # type: ignore[index]


def test_usage_before_the_compaction_is_not_reported() -> None:
    t, _ = _session()
    cut = [x for x in t.entries if x.id in ("u1", "a1", "c1", "u2")]
    t2 = transcript(cut, ["c1", "a1", "u2"])
    report = count_tokens(t2)
    assert report.reported_context is None
    assert report.estimate_context == sum(estimate_entry_tokens(t2.entry(i))
                                          for i in ("c1", "a1", "u2"))


def test_cache_per_encoding_and_progress() -> None:
    t, _ = _session()
    seen: list[tuple[int, int]] = []
    first = count_tokens(t, "o200k_base", on_progress=lambda d, n: seen.append((d, n)))
    assert seen and seen[-1] == (len(t.entries), len(t.entries))
    assert count_tokens(t, "o200k_base") is first
    other = count_tokens(t, "cl100k_base")
    assert other is not first and other.encoding == "cl100k_base"
    assert {k: v.estimate_pi for k, v in other.entries.items()} == {
        k: v.estimate_pi for k, v in first.entries.items()}
    enc = get_encoding("cl100k_base")
    assert other.entries["u1"].exact == len(enc.encode_ordinary(entry_count_text(t.entry("u1"))))


def test_cancel_raises_load_cancelled() -> None:
    t = transcript([msg_entry(f"{i:08x}", user("word " * 50)) for i in range(50)])
    with pytest.raises(LoadCancelled):
        count_tokens(t, "cl100k_base", cancel=lambda: True)
    assert count_tokens(t, "cl100k_base").exact_total > 0  # a cancelled run caches nothing


def test_cancel_mid_run_after_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_counter, "CHUNK_CHARS", 64)  # one small chunk per entry
    texts = [f"word {i} " * 20 for i in range(200)]  # distinct: equal texts count once
    t = transcript([msg_entry(f"{i:08x}", user(x)) for i, x in enumerate(texts)])
    calls = {"cancel": 0}
    progress: list[int] = []

    def cancel() -> bool:
        calls["cancel"] += 1
        return len(progress) >= 3

    with pytest.raises(LoadCancelled):
        count_tokens(t, "o200k_base", cancel=cancel, on_progress=lambda d, n: progress.append(d))
    assert 3 <= len(progress) and progress[-1] < len(t.entries)
    full = count_tokens(t, "o200k_base")
    enc = get_encoding("o200k_base")
    assert full.exact_total == sum(len(enc.encode_ordinary(x)) for x in texts)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=300) | st.just("<|endoftext|> and <|fim_prefix|>"),
                min_size=1, max_size=30))
def test_chunked_exact_counts_equal_raw_tiktoken(texts: list[str]) -> None:
    t = transcript([msg_entry(f"{i:08x}", user(x)) for i, x in enumerate(texts)])
    enc = get_encoding("cl100k_base")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(text_counter, "CHUNK_CHARS", 50)  # many chunks: helper threads join in
        report = count_tokens(t, "cl100k_base")
    for i, x in enumerate(texts):
        assert report.entries[f"{i:08x}"].exact == len(enc.encode_ordinary(x))


def test_cache_keeps_only_recent_transcripts() -> None:
    first = transcript([msg_entry("a", user("one"))])
    report = count_tokens(first)
    for i in range(10):
        count_tokens(transcript([msg_entry("a", user(f"other {i}"))]))
    again = count_tokens(first)
    assert again is not report and again == report


def test_context_series() -> None:
    t, _ = _session()
    report = count_tokens(t)
    points = {p.entry_id: p for p in context_series(t, report)}
    assert [p.index for p in context_series(t, report)] == list(range(len(t.active_path)))
    est = {i: report.entries[i].estimate_pi for i in report.entries}
    assert points["u1"].tokens == est["u1"] and not points["u1"].reported
    assert points["a1"].tokens == 1000 and points["a1"].reported
    # the compaction restarts at its summary plus what it kept (a1)
    assert points["c1"].tokens == est["c1"] + est["a1"]
    assert points["u2"].tokens == est["c1"] + est["a1"] + est["u2"]
    assert points["a2"].tokens == 1400 and points["a2"].reported
    assert points["u3"].tokens == 1400 + est["r1"] + est["a3"] + est["u3"]
