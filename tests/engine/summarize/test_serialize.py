"""Entries -> model messages (§1.5) -> the tagged plain-text conversation (§3.5)."""

from __future__ import annotations

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.model import Entry, Message, TextBlock, ThinkingBlock
from sessionlens.engine.summarize.serialize import (
    BRANCH_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_PREFIX,
    entries_to_llm_messages,
    entry_to_llm_message,
    serialize_entries,
    truncate_tool_result,
)


def _bash(**kw: object) -> Entry:
    msg = Message(role="bashExecution", command="make test", output=str(kw.pop("output", "")),
                  **kw)  # type: ignore[arg-type]
    return Entry(type="message", id="b1", parent_id=None, timestamp=None, line=2, message=msg)


def test_bash_execution_becomes_user_text() -> None:
    assert entry_to_llm_message(_bash(output="ok\n", exit_code=0)).text == \
        "Ran `make test`\n```\nok\n\n```"  # type: ignore[union-attr]
    failed = entry_to_llm_message(_bash(output="", exit_code=2))
    assert failed is not None and failed.role == "user" and failed.source_role == "bashExecution"
    assert failed.text == "Ran `make test`\n(no output)\nCommand exited with code 2"
    cut = entry_to_llm_message(_bash(output="x", cancelled=True, truncated=True,
                                     full_output_path="/tmp/out.txt"))
    assert cut is not None and cut.text.endswith(
        "(command cancelled)\n[Output truncated. Full output: /tmp/out.txt]")
    assert entry_to_llm_message(_bash(output="x", exclude_from_context=True)) is None


def test_summaries_custom_and_non_context_entries() -> None:
    b = TranscriptBuilder()
    b.compaction("S1")
    b.branch_summary("B1")
    b.custom_message("injected note")
    b.model_change()
    b.label("00000001")
    messages = entries_to_llm_messages(b.build().entries)
    assert [m.source_role for m in messages] == ["compactionSummary", "branchSummary", "custom"]
    assert messages[0].text == COMPACTION_SUMMARY_PREFIX + "S1\n</summary>"
    assert messages[1].text == BRANCH_SUMMARY_PREFIX + "B1</summary>"
    assert all(m.role == "user" for m in messages)


def test_conversation_tags_and_tool_calls() -> None:
    b = TranscriptBuilder()
    b.user("please list")
    call = b.call("bash", command="ls -la", timeout=30)
    b.assistant("Listing now.", call, thinking="user wants a listing")
    b.result(call, "a.txt\nb.txt")
    text = serialize_entries(b.build().entries)
    assert text == ("[User]: please list\n\n"
                    "[Assistant thinking]: user wants a listing\n\n"
                    "[Assistant]: Listing now.\n\n"
                    '[Assistant tool calls]: bash(command="ls -la", timeout=30)\n\n'
                    "[Tool result]: a.txt\nb.txt")


def test_tool_results_are_cut_at_2000_with_count() -> None:
    b = TranscriptBuilder()
    call = b.call("read", path="big.txt")
    b.assistant("", call)
    b.result(call, "x" * 2500)
    text = serialize_entries(b.build().entries)
    assert text.endswith("[Tool result]: " + "x" * 2000 + "\n\n[... 500 more characters truncated]")
    assert truncate_tool_result("short") == "short"


def test_redacted_thinking_and_empty_text_are_skipped() -> None:
    msg = Message(role="assistant", content=(ThinkingBlock("", redacted=True), TextBlock("hi")))
    e = Entry(type="message", id="a", parent_id=None, timestamp=None, line=2, message=msg)
    assert serialize_entries([e]) == "[Assistant]: hi"
