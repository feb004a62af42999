"""Transcript export: everything shown (thinking, tool calls, images, compaction boundaries
with their audit), and an HTML page that stays inert whatever the transcript holds."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.audit.report import audit_compaction
from sessionlens.engine.errors import ExportError
from sessionlens.engine.export.transcript import export_transcript, render_transcript_markdown
from sessionlens.engine.model import ImageBlock, Message, TextBlock, Transcript

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
HOSTILE = ('<script>alert(1)</script><img src=x onerror="alert(2)">'
           '<a href="javascript:alert(3)">x</a><iframe src="https://evil.test"></iframe>')
KEY = "sk-ant-" + "a1B2c3D4" * 5


def _transcript() -> Transcript:
    b = TranscriptBuilder()
    b.user(f"Look at this {HOSTILE} and use key {KEY}")
    b.message(Message(role="user", content=(TextBlock("two screenshots"),
                                            ImageBlock("image/png", PNG),
                                            ImageBlock("image/svg+xml", "PHN2Zz48L3N2Zz4="))))
    call = b.call("bash", command="pytest -x tests/")
    b.assistant("Running the tests.", call, thinking="The parser probably fails on <b>big</b> input.")
    b.result(call, "E   ValueError: parser failed at step 5\n1 failed")
    kept = b.user("go on")
    b.assistant("done")
    b.compaction("Summary unavailable due to context limits.", first_kept=kept.id)
    b.user("after the boundary")
    return b.build()


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_html_export_is_inert_and_complete(tmp_path: Path) -> None:
    t = _transcript()
    audits = {t.compactions[0].id: audit_compaction(t)}
    done = export_transcript(t, "html", tmp_path / "t.html", audits=audits)
    html = done.path.read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert not tags & {"script", "iframe", "a", "object", "embed", "form", "link"}
    assert not any(k.startswith("on") for _, attrs in parser.tags for k in attrs)
    images = [attrs["src"] or "" for tag, attrs in parser.tags if tag == "img"]
    assert images == [f"data:image/png;base64,{PNG}"]  # the SVG is only named
    assert "[image image/svg+xml, not embedded]" in html
    csp = next(a["content"] for tag, a in parser.tags if tag == "meta"
               and a.get("http-equiv") == "Content-Security-Policy")
    assert csp is not None and "default-src 'none'" in csp and "img-src data:" in csp
    assert "script-src 'none'" in csp and "connect-src 'none'" in csp
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "The parser probably fails on &lt;b&gt;big&lt;/b&gt; input." in html  # thinking
    assert "pytest -x tests/" in html and "ValueError: parser failed at step 5" in html
    assert 'class="boundary"' in html and "TOTAL LOSS" in html
    assert KEY not in html and done.secrets_redacted == 1
    assert (done.entries, done.compactions) == (8, 1)


def test_markdown_export_shows_every_kind_of_block() -> None:
    t = _transcript()
    md = render_transcript_markdown(t, {t.compactions[0].id: audit_compaction(t)})
    assert "> **Thinking**" in md and "**Tool call** `bash`" in md
    assert re.search(r"```json\n\{\n  \"command\": \"pytest -x tests/\"\n\}\n```", md)
    assert f"![image image/png](data:image/png;base64,{PNG})" in md
    assert "## Compaction" in md and "- SessionLens checks: FAILED" in md
    assert md.index("## Compaction") < md.index("after the boundary")
    assert KEY not in md


def test_export_refuses_a_folder_and_unknown_formats(tmp_path: Path) -> None:
    t = _transcript()
    with pytest.raises(ExportError, match="is a folder"):
        export_transcript(t, "html", tmp_path)
    with pytest.raises(ExportError, match="md or html"):
        export_transcript(t, "pdf", tmp_path / "x.pdf")  # type: ignore[arg-type]


def test_bidi_controls_never_reach_an_export_raw(tmp_path: Path) -> None:
    """Issue 39 item 16: U+202A-202E and U+2066-2069 reorder what a reader sees; every
    export (transcript md/html, summary md/json/html) shows them as their escapes, and the
    JSON export still decodes to the text the transcript holds."""
    from fixtures.factories import TranscriptBuilder
    from sessionlens.engine.cli import main

    bidi = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]]

    sly = "open invoice\u202Egnp.exe and \u2066ok\u2069 now"
    b = TranscriptBuilder()
    first = b.user(f"please {sly}")
    b.assistant("Opening it.")
    b.compaction(f"## Goal\n- {sly}", first.id)
    b.user("next")
    src = b.write(tmp_path / "bidi.jsonl")
    outs: dict[str, Path] = {}
    for fmt in ("md", "html"):
        outs[f"transcript.{fmt}"] = tmp_path / f"t.{fmt}"
        assert main(["export", str(src), "--format", fmt, "-o", str(outs[f"transcript.{fmt}"]),
                     "--transcript"]) == 0
    for fmt in ("md", "json", "html"):
        outs[f"summary.{fmt}"] = tmp_path / f"s.{fmt}"
        assert main(["export", str(src), "--format", fmt, "-o", str(outs[f"summary.{fmt}"])]) == 0
    raw = {name: [hex(ord(c)) for c in bidi if c in p.read_text("utf-8")]
           for name, p in outs.items()}
    assert raw == {name: [] for name in outs}
    assert "invoice\\u202Egnp.exe" in outs["transcript.md"].read_text("utf-8")
    assert "\\u2066ok\\u2069" in outs["transcript.html"].read_text("utf-8")
    assert sly in json.loads(outs["summary.json"].read_text("utf-8"))["summary"]["text"]
