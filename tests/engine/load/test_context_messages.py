"""pi 1.6's rows read and replayed: a compaction's systemMessage leads, context edits hide or
swap, stored system messages stay out of a kept tail, usage rows are metadata."""

from __future__ import annotations

from pathlib import Path

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.load.context_messages import context_messages


def _system(text: str) -> dict[str, object]:
    return {"role": "system", "content": "", "sections": {"base": text, "gone": None},
            "toolsAdded": [{"name": "read", "parameters": {}}], "timestamp": 1}


def test_pi16_rows_replay_as_pi_does(tmp_path: Path) -> None:
    b = TranscriptBuilder()
    b.message(_system("old prompt"))
    b.user("first")
    b.assistant("answer one")
    kept = b.user("second").id
    b.message(_system("a prompt change inside the kept tail"))
    call = b.call("read", path="/x")
    b.assistant("", call)
    result = b.result(call, "a very long tool output")
    b.add("context_edit", targetId=result.id, replacement={"content": [
        {"type": "text", "text": "[trimmed]"}]})
    b.add("usage", kind="compaction", provider="p", model="m",
          usage={"input": 5, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 6})
    b.compaction("the summary", first_kept=kept)
    b.lines[-1]["systemMessage"] = _system("new prompt")
    b.user("third")
    failed = b.assistant("", stop_reason="error", error_message="500")
    b.add("context_edit", targetId=failed.id, replacement=None)
    t = b.build()
    assert not [d for d in t.diagnostics if d.severity == "error"]
    system = t.entries[0].message
    assert system is not None and system.sections is not None and system.tools_added
    got = [(m.role, m.text) for m in context_messages(t)]
    assert got == [("system", "new prompt"), ("compactionSummary", "the summary"),
                   ("user", "second"), ("assistant", ""), ("toolResult", "[trimmed]"),
                   ("user", "third")]
    assert context_messages(t)[3].calls == ("read",)
    usage_row = next(e for e in t.entries if e.type == "usage")
    assert usage_row.usage is not None and usage_row.usage.total_tokens == 6
    assert usage_row.is_known_type and usage_row.reason == "compaction"
