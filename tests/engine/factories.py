"""Build Transcripts in code for tests (no files, no loader): entries chain parent -> child.

``TranscriptBuilder`` appends entries to the current leaf and hands the result to
``tree.build_transcript``, so index, active path and replayed context come from the same code
the loader uses. Ids are 8-hex counters ("00000001", ...), so tests can name them.
``transcripts()`` is a hypothesis strategy of realistic sessions (turns, tool frames, metadata,
aborted turns, an optional earlier compaction) for property tests.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from sessionlens.engine.model import (
    Entry,
    FileOps,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
    Usage,
)
from sessionlens.engine.tree import build_transcript


class TranscriptBuilder:
    """Appends entries (each a child of the previous one) and builds a Transcript."""

    def __init__(self, path: str = "/tmp/built.jsonl") -> None:
        self.path = path
        self.entries: list[Entry] = []
        self.leaf: str | None = None
        self._calls = 0

    def _add(self, type: str, **fields: Any) -> Entry:
        entry_id = f"{len(self.entries) + 1:08x}"
        parent = fields.pop("parent_id", self.leaf)
        entry = Entry(type=type, id=entry_id, parent_id=parent,
                      timestamp=f"2026-01-01T00:{len(self.entries) // 60:02d}:"
                                f"{len(self.entries) % 60:02d}.000Z",
                      line=len(self.entries) + 2, **fields)
        self.entries.append(entry)
        self.leaf = entry_id
        return entry

    def message(self, msg: Message) -> Entry:
        return self._add("message", message=msg)

    def user(self, text: str = "hello") -> Entry:
        return self.message(Message(role="user", content=(TextBlock(text),)))

    def call(self, name: str = "read", **arguments: Any) -> ToolCallBlock:
        """A tool call block with a fresh id (pass to ``assistant``)."""
        self._calls += 1
        return ToolCallBlock(id=f"call_{self._calls}", name=name, arguments=dict(arguments))

    def assistant(self, text: str = "ok", *calls: ToolCallBlock, usage: int | None = None,
                  stop_reason: str | None = None, thinking: str | None = None,
                  error_message: str | None = None, model: str = "test-model") -> Entry:
        blocks: list[Any] = []
        if thinking:
            blocks.append(ThinkingBlock(thinking))
        if text:
            blocks.append(TextBlock(text))
        blocks.extend(calls)
        reason = stop_reason or ("toolUse" if calls else "stop")
        return self.message(Message(
            role="assistant", content=tuple(blocks), provider="test", model=model,
            api="test-api", usage=Usage(input=usage, total_tokens=usage) if usage else None,
            stop_reason=reason, error_message=error_message))

    def result(self, call: ToolCallBlock | str, text: str = "done", *,
               is_error: bool = False) -> Entry:
        call_id = call if isinstance(call, str) else call.id
        name = "read" if isinstance(call, str) else call.name
        return self.message(Message(role="toolResult", content=(TextBlock(text),),
                                    tool_call_id=call_id, tool_name=name, is_error=is_error))

    def bash(self, command: str = "ls", output: str = "a b", *, exclude: bool = False) -> Entry:
        return self.message(Message(role="bashExecution", command=command, output=output,
                                    exit_code=0, exclude_from_context=exclude))

    def custom_message(self, text: str = "note", custom_type: str = "ext") -> Entry:
        return self._add("custom_message", custom_type=custom_type, content=(TextBlock(text),))

    def branch_summary(self, summary: str = "explored a branch") -> Entry:
        return self._add("branch_summary", summary=summary, from_id=self.leaf)

    def compaction(self, summary: str = "summary", first_kept: str | None = None,
                   tokens_before: int = 0, *, from_hook: bool = False,
                   file_ops: FileOps | None = None) -> Entry:
        entry = self._add("compaction", summary=summary, tokens_before=tokens_before,
                          from_hook=from_hook, file_ops=file_ops)
        kept = first_kept if first_kept is not None else entry.id
        entry = replace(entry, first_kept_entry_id=kept)
        self.entries[-1] = entry
        return entry

    def reset(self, reason: str = "reset") -> Entry:
        return self._add("reset", reason=reason)

    def model_change(self, model: str = "other-model") -> Entry:
        return self._add("model_change", provider="test", model_id=model)

    def thinking_level(self, level: str = "high") -> Entry:
        return self._add("thinking_level_change", thinking_level=level)

    def label(self, target: str, label: str = "here") -> Entry:
        return self._add("label", target_id=target, label=label)

    def build(self) -> Transcript:
        return build_transcript(self.path, "openclaw-v3", None, self.entries, ())


def text_of(size: int) -> str:
    """A text whose pi estimate is ``size`` tokens (4 chars each)."""
    return "abcd" * size


# ----------------------------------------------------------------------------- hypothesis

@st.composite
def transcripts(draw: st.DrawFn, *, max_turns: int = 8, allow_compaction: bool = True
                ) -> Transcript:
    """A random but well-formed session: user turns with tool frames, metadata and noise."""
    b = TranscriptBuilder()
    size = st.integers(min_value=0, max_value=3000)
    turns = draw(st.integers(min_value=1, max_value=max_turns))
    compact_after = draw(st.integers(min_value=0, max_value=turns)) if allow_compaction else -1
    for turn in range(turns):
        if turn == compact_after and turn > 0:
            kept = draw(st.sampled_from([e.id for e in b.entries] + [None]))
            b.compaction(summary=text_of(draw(size)), first_kept=kept)
        opener = draw(st.sampled_from(["user", "user", "user", "bash", "custom", "branch"]))
        if opener == "user":
            b.user(text_of(draw(size)))
        elif opener == "bash":
            b.bash("cmd", text_of(draw(size)), exclude=draw(st.booleans()))
        elif opener == "custom":
            b.custom_message(text_of(draw(size)))
        else:
            b.branch_summary(text_of(draw(size)))
        for _step in range(draw(st.integers(min_value=0, max_value=4))):
            if draw(st.integers(0, 9)) == 0:
                b.model_change()
            calls = [b.call(draw(st.sampled_from(["read", "write", "edit", "bash"])),
                            path=f"/src/f{draw(st.integers(0, 5))}.py")
                     for _ in range(draw(st.integers(min_value=0, max_value=3)))]
            stop = draw(st.sampled_from([None, None, None, "aborted", "error"]))
            usage = draw(st.one_of(st.none(), st.integers(1000, 200_000)))
            b.assistant(text_of(draw(size)), *calls, usage=usage, stop_reason=stop)
            if stop is not None:
                continue  # an aborted/errored call never gets results
            for call in calls:
                if draw(st.integers(0, 7)) == 0:
                    b.thinking_level()
                b.result(call, text_of(draw(size)))
        b.assistant(text_of(draw(size)), usage=draw(st.integers(1000, 200_000)))
        if draw(st.integers(0, 5)) == 0:
            b.label(b.entries[-1].id)
    return b.build()
