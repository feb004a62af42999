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
