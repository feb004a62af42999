"""Message parts: blocks become thinking, markdown, tool and error parts; long text is clipped."""

from __future__ import annotations

from pathlib import Path

from fixtures.scenarios import small_session
from sessionlens.engine import load_transcript
from sessionlens.gui.transcript import message_render as mr


def test_message_parts_cover_blocks(tmp_path: Path) -> None:
    t = load_transcript(small_session().write(tmp_path / "s.jsonl"))
    kinds = [k for k, _ in mr.block_parts(t.entry("a0000007"))]
    assert kinds == ["thinking", "markdown"]
    assert [k for k, _ in mr.block_parts(t.entry("a0000001"))] == ["tool"]
    assert [k for k, _ in mr.block_parts(t.entry("ovf00001"))] == ["error"]
    text, rest = mr.clip("x" * (mr.MAX_INLINE + 5))
    assert len(text) == mr.MAX_INLINE and rest == 5
    html = mr.code_html('{"a": 1}', "json", dark=False)
    assert "style=" in html and "<pre" in html


def test_error_json_shows_real_newlines() -> None:
    """A provider's error body: pretty-printed, its escaped newlines shown as line breaks."""
    raw = '400 {"type":"error","error":{"message":"first line\\nsecond line"}}'
    text = mr.error_text(raw)
    assert "\\n" not in text
    assert "first line\nsecond line" in text
    assert text.startswith("400 {\n")  # the JSON body indented, one key a line
    html = mr.error_html(raw)
    assert "white-space:pre-wrap" in html and "\\n" not in html
    assert mr.error_text("plain failure") == "plain failure"
