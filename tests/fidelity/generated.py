"""Seeded sessions for the differential tests: the corners where cut rules disagree.

``generated_session(seed)`` builds, with ``fixtures.factories.TranscriptBuilder``, a session
mixing what pi's and OpenClaw's code treat specially: tool frames (also calls without a
result, results after a displaced user message, errored and aborted turns), bash runs (also
excluded ones), custom messages, branch summaries (also empty ones), images, CJK text,
metadata rows, usage of every shape (none, zero, parts only, OpenClaw's contextUsage, far
above or below the estimate), earlier compactions (kept tail, hard boundary, unknown
first-kept id, hook-written), resets with and without a kept window, a ``cli`` assistant, and
side branches. Deterministic per seed, so a failure names the seed that shows it. Both
return the builder: ``write(path)`` leaves the file the agents' code and ours both read.
"""

from __future__ import annotations

import random

from fixtures.factories import TranscriptBuilder, text_of
from sessionlens.engine.model import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

__all__ = ["generated_session", "generated_session_16", "keep_values", "pairing_rows"]

_CJK = "日本語の文章と한국어テキスト"
_IMAGE = ImageBlock("image/png", "iVBORw0KGgo=")


def _text(rng: random.Random, big: int) -> str:
    size = rng.choice([0, 1, 5, 40, 200, big])
    if rng.random() < 0.15:
        return (_CJK * (size // 4 + 1))[: max(1, size)]
    return text_of(size)


def _usage(rng: random.Random, scale: float) -> Usage | None:
    kind = rng.choice(["none", "total", "total", "total", "zero", "parts", "context"])
    n = int(rng.randint(500, 60_000) * scale)
    if kind == "none":
        return None
    if kind == "zero":
        return Usage()
    if kind == "parts":
        return Usage(input=n, output=rng.randint(0, 500), cache_read=rng.randint(0, 1000))
    if kind == "context":
        return Usage(input=n, total_tokens=n + 10, context_usage=n + rng.randint(-400, 4000))
    return Usage(input=n, total_tokens=n)


def _assistant(b: TranscriptBuilder, rng: random.Random, calls: list[ToolCallBlock],
               stop: str, scale: float, big: int) -> None:
    blocks: list[object] = []
    if rng.random() < 0.3:
        blocks.append(ThinkingBlock(_text(rng, big)))
    if rng.random() < 0.9:
        blocks.append(TextBlock(_text(rng, big)))
    blocks.extend(calls)
    api = "cli" if rng.random() < 0.04 else "test-api"
    b.message(Message(role="assistant", content=tuple(blocks), provider="test",  # type: ignore[arg-type]
                      model=rng.choice(["model-a", "model-a", "model-b"]), api=api,
                      usage=_usage(rng, scale), stop_reason=stop,
                      error_message="boom" if stop == "error" else None))


def _result(b: TranscriptBuilder, rng: random.Random, call: ToolCallBlock, big: int) -> None:
    content: tuple[object, ...] = (TextBlock(_text(rng, big)),)
    if rng.random() < 0.1:
        content += (_IMAGE,)
    b.message(Message(role="toolResult", content=content,  # type: ignore[arg-type]
                      tool_call_id=call.id if rng.random() > 0.03 else "", tool_name=call.name,
                      is_error=rng.random() < 0.1))


def _opener(b: TranscriptBuilder, rng: random.Random, big: int) -> None:
    kind = rng.choice(["user"] * 6 + ["bash", "bash", "custom", "branch", "image"])
    if kind == "user":
        b.user(_text(rng, big))
    elif kind == "image":
        b.message(Message(role="user", content=(TextBlock(_text(rng, big)), _IMAGE)))
    elif kind == "bash":
        b.bash("cmd", _text(rng, big), exclude=rng.random() < 0.3)
    elif kind == "custom":
        b.custom_message(_text(rng, big))
    else:
        b.branch_summary(_text(rng, big) if rng.random() < 0.8 else "")


def _boundary(b: TranscriptBuilder, rng: random.Random, big: int, resets: bool = True) -> None:
    ids = [row["id"] for row in b.lines[1:]]
    kind = rng.choice(["kept", "kept", "hard", "unknown", "hook", "reset", "reset-kept"]
                      if resets else ["kept", "kept", "hard", "unknown", "hook"])
    if kind.startswith("reset"):
        b.reset(rng.choice(["new", "reset", "idle"]))
        if kind == "reset-kept" and ids:
            b.lines[-1]["firstKeptEntryId"] = rng.choice(ids)
        return
    first = {"kept": rng.choice(ids) if ids else None, "hard": None, "unknown": "deadbeef",
             "hook": rng.choice(ids) if ids else None}[kind]
    b.compaction(summary=_text(rng, big), first_kept=first, tokens_before=rng.randint(0, 90_000),
                 from_hook=kind == "hook")


def generated_session(seed: int, *, resets: bool = True) -> TranscriptBuilder:
    """A session of about 10 to 90 rows; see the module docstring for what it mixes
    (``resets=False``: no OpenClaw reset rows, which pi never writes)."""
    rng = random.Random(seed)
    b = TranscriptBuilder(path=f"/generated/{seed}.jsonl")
    big = rng.choice([300, 1500, 6000])
    scale = rng.choice([0.05, 0.5, 1.0, 3.0])
    for _turn in range(rng.randint(2, 12)):
        if len(b.lines) > 1 and rng.random() < 0.12:
            _boundary(b, rng, big, resets)
        if len(b.lines) > 1 and rng.random() < 0.05:  # a side branch: on from an earlier row
            b.leaf = rng.choice(b.lines[1:])["id"]
        _opener(b, rng, big)
        for _step in range(rng.randint(0, 4)):
            meta = rng.random()
            if meta < 0.06:
                b.model_change(rng.choice(["model-a", "model-c"]))
            elif meta < 0.1:
                b.thinking_level(rng.choice(["off", "low", "high"]))
            elif meta < 0.13:
                b.label(b.lines[-1]["id"])
            calls = [b.call(rng.choice(["read", "write", "edit", "bash"]), path=f"/src/f{k}.py")
                     for k in range(rng.choice([0, 0, 1, 1, 2, 3]))]
            stop = rng.choice(["stop", "toolUse", "stop", "aborted", "error", "length"])
            if calls and stop == "stop":
                stop = "toolUse"
            _assistant(b, rng, calls, stop, scale, big)
            if stop in ("aborted", "error"):
                continue
            for k, call in enumerate(calls):
                if rng.random() < 0.07:
                    continue  # a call that never got a result
                if k == 0 and rng.random() < 0.08:
                    b.user(_text(rng, big))  # a user message displaced into the frame
                _result(b, rng, call, big)
        _assistant(b, rng, [], "stop", scale, big)
    if rng.random() < 0.15:
        _boundary(b, rng, big, resets)
    return b


def _system(b: TranscriptBuilder, rng: random.Random, big: int) -> dict[str, object]:
    """A pi 1.6 system message: empty content, the prompt in sections, maybe tools."""
    body: dict[str, object] = {"role": "system", "content": "" if rng.random() < 0.7
                               else _text(rng, big),
                               "sections": {"base": _text(rng, big), "cwd": "/home/dev"},
                               "timestamp": 0}
    if rng.random() < 0.5:
        body["toolsAdded"] = [{"name": "read", "description": "Read a file",
                               "parameters": {"type": "object"}}]
    if rng.random() < 0.2:
        body["sections"] = {"cwd": None, "extra": _text(rng, 40)}
        body["toolsRemoved"] = [{"name": "read"}]
    return body


def _edit(b: TranscriptBuilder, rng: random.Random, big: int) -> None:
    """A context edit of a recent editable row: hide it, or swap its content."""
    rows = [r for r in b.lines[1:] if r["type"] == "custom_message" or (
        r["type"] == "message" and r["message"]["role"] in ("user", "assistant", "toolResult"))]
    if not rows:
        return
    target = rng.choice(rows[-6:])
    replacement = None if rng.random() < 0.5 else {
        "content": [{"type": "text", "text": _text(rng, big)}] if rng.random() < 0.7
        else _text(rng, big)}
    b.add("context_edit", targetId=target["id"], replacement=replacement)


def generated_session_16(seed: int) -> TranscriptBuilder:
    """A session with what pi 1.6 writes: stored system messages (the prompt in sections),
    context edits (hiding a failed turn, swapping a tool result or a user message),
    ``usage`` rows, compactions with ``usage`` and ``systemMessage`` (also keeping nothing),
    all-zero usage and images in user messages, on top of ``generated_session``'s rows."""
    rng = random.Random(10_000 + seed)
    b = generated_session(seed, resets=False)
    b.path = f"/generated/pi16-{seed}.jsonl"
    big = rng.choice([300, 1500, 6000])
    b.message(_system(b, rng, big))
    for _turn in range(rng.randint(2, 8)):
        b.message(Message(role="user", content=(TextBlock(_text(rng, big)),)
                          + ((_IMAGE,) if rng.random() < 0.3 else ())))
        calls = [b.call("read", path="/src/x.py")] if rng.random() < 0.5 else []
        stop = rng.choice(["stop", "error", "stop", "aborted"]) if not calls else "toolUse"
        _assistant(b, rng, calls, stop, rng.choice([0.05, 0.5, 1.0]), big)
        if stop == "error" and rng.random() < 0.7:  # pi 1.6 hides the failed attempt
            b.add("context_edit", targetId=b.leaf, replacement=None)
        for call in calls:
            _result(b, rng, call, big)
        if rng.random() < 0.3:
            _edit(b, rng, big)
        if rng.random() < 0.25:
            b.add("usage", kind="compaction", provider="test", model="model-a",
                  usage={"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0,
                         "totalTokens": 120, "cost": {"total": 0.001}})
        if rng.random() < 0.15:
            b.message(_system(b, rng, big))
        if rng.random() < 0.2:
            ids = [r["id"] for r in b.lines[1:]]
            first = rng.choice(ids[-8:]) if rng.random() < 0.7 else None
            entry = b.compaction(summary=_text(rng, big), first_kept=first,
                                 tokens_before=rng.randint(0, 90_000))
            b.lines[-1]["usage"] = {"input": 50, "output": 10, "cacheRead": 0, "cacheWrite": 0,
                                    "totalTokens": 60}
            b.lines[-1]["systemMessage"] = _system(b, rng, big)
            assert entry.id
        _assistant(b, rng, [], rng.choice(["stop", "stop", "error"]), 1.0, big)
    if rng.random() < 0.3:
        _edit(b, rng, big)
    return b


def keep_values(seed: int) -> tuple[int, int]:
    """Two keepRecentTokens settings for the session of ``seed`` (one small, one larger)."""
    rng = random.Random(seed * 7919 + 1)
    return rng.choice([0, 1, 50, 300]), rng.choice([1000, 3000, 8000, 20000])


def pairing_rows(seed: int) -> TranscriptBuilder:
    """A run of messages for a reset's window, with tool ids drawn from a tiny pool so that
    calls repeat ids, results come late, twice, without an id, or for another tool."""
    rng = random.Random(seed)
    b = TranscriptBuilder(path=f"/generated/pairing-{seed}.jsonl")
    names = ["read", "edit"]
    for _ in range(rng.randint(3, 25)):
        kind = rng.choice(["user", "assistant", "calls", "calls", "result", "result", "result",
                           "custom", "bash"])
        if kind == "user":
            b.user("u")
        elif kind == "assistant":
            b.assistant("a", stop_reason=rng.choice(["stop", "error", "aborted"]))
        elif kind == "calls":
            calls = [ToolCallBlock(rng.choice("abc"), rng.choice(names), {})
                     for _ in range(rng.randint(1, 3))]
            b.assistant("c", *calls, stop_reason=rng.choice(["toolUse", "toolUse", "error"]))
        elif kind == "result":
            b.message(Message(role="toolResult", content=(TextBlock("r"),),
                              tool_call_id=rng.choice(["a", "b", "c", "z", ""]),
                              tool_name=rng.choice(names + [""])))
        elif kind == "custom":
            b.custom_message("n")
        else:
            b.bash("ls", "x", exclude=rng.random() < 0.5)
    return b
