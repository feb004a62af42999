"""Audited exports: JSON against its schema, Markdown, and an HTML page that stays inert."""

from __future__ import annotations

import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

from fixtures.factories import TranscriptBuilder, structured_summary
from fixtures.samples import sample_path
from fixtures.scenarios import basic_session
from sessionlens.engine.audit.report import audit_compaction
from sessionlens.engine.errors import ExportError
from sessionlens.engine.export.summary import (
    bundle_for_compaction,
    bundle_to_dict,
    export_schema,
    export_summary,
    make_bundle,
)
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import write_compaction

FAKE_KEY = "sk-ant-api03-" + "Q" * 40
HOSTILE = [
    "<script>alert(document.cookie)</script>",
    '<a href="javascript:alert(1)">click</a> and <a href="JaVaScRiPt:void(0)">x</a>',
    '"><img src=x onerror=alert(1)> \' onmouseover=\'alert(2)\' x="',
    "</pre></td></table></body><iframe src=https://evil.example/frame></iframe>",
    "<style>@import url(https://evil.example/x.css)</style><link rel=stylesheet href=//evil.example>",
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    "<svg onload=alert(3)><object data=https://evil.example/o></object>",
    "<!-- comment --><![CDATA[ x ]]>&amp;&lt;",
]


def _hostile_session(tmp_path: Path) -> Path:
    b = TranscriptBuilder()
    for text in HOSTILE:
        b.user(text + " /srv/evil/<script>.py")
        b.assistant(text, b.call("bash", call_id="c", command=text))
    b.user("x" * 200_000)  # an oversized line
    kept = b.user("and keep going").id
    summary = structured_summary("\n".join(HOSTILE) + "\n" + "y" * 50_000 + f"\nkey {FAKE_KEY}")
    b.compaction(summary, kept)
    return b.write(tmp_path / "hostile.jsonl")


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        (self.styles if self._in_style else self.text).append(data)


def test_html_export_of_hostile_transcript_is_inert(tmp_path: Path) -> None:
    transcript = load_transcript(_hostile_session(tmp_path))
    out = export_summary(bundle_for_compaction(transcript), "html", tmp_path / "out.html")
    page = out.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    parser.close()
    tags = [t for t, _ in parser.tags]
    assert "script" not in tags
    assert not set(tags) & {"iframe", "img", "svg", "object", "embed", "link", "a", "form", "base"}
    assert tags.count("style") == 1 and tags.count("meta") == 3
    for tag, attrs in parser.tags:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert name not in ("src", "href", "action", "data", "srcset", "formaction")
            assert "javascript:" not in (value or "").lower()
    csp = [dict(a) for t, a in parser.tags if t == "meta" and dict(a).get("http-equiv")]
    assert len(csp) == 1 and csp[0]["http-equiv"] == "Content-Security-Policy"
    assert "default-src 'none'" in (csp[0]["content"] or "")
    assert "'unsafe-inline'" not in (csp[0]["content"] or "")
    css = "".join(parser.styles)
    assert "url(" not in css and "@import" not in css
    assert "pre-wrap" in css and "overflow-wrap:anywhere" in css  # long lines wrap
    text = "".join(parser.text)
    for hostile in HOSTILE[:3]:
        assert hostile in text  # shown as text, not markup
    assert FAKE_KEY not in page and "[REDACTED:" in page


def test_json_export_validates_against_schema(tmp_path: Path) -> None:
    path, ids = basic_session(tmp_path)
    transcript = load_transcript(path)
    out = export_summary(bundle_for_compaction(transcript), "json", tmp_path / "out.json")
    data = json.loads(out.read_text(encoding="utf-8"))
    schema = export_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)
    assert data["schema_version"] == 1
    assert data["source"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    summary = next(json.loads(x) for x in path.read_text().splitlines()
                   if json.loads(x).get("type") == "compaction")["summary"]
    assert data["summary"]["sha256"] == hashlib.sha256(summary.encode()).hexdigest()
    assert data["covered"] == {"first_entry_id": ids["ask"], "last_entry_id": ids["docs"],
                               "entry_count": 4, "carried_tail_count": 0}
    assert data["compaction_id"] == ids["compaction"]
    names = [c["name"] for c in data["audit"]["checks"]]
    assert names == ["content", "sections", "identifiers", "errors", "latest_ask", "budget"]
    assert {d["value"] for d in data["dropped"]} >= {"/srv/app/parser.py", "pytest -q tests/test_parser.py"}
    broken = dict(data, schema_version=2)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(broken)


def test_keys_never_appear_in_any_format(tmp_path: Path) -> None:
    path, _ = basic_session(tmp_path, summary=structured_summary(f"token {FAKE_KEY}"))
    transcript = load_transcript(path)
    report = audit_compaction(transcript)
    bundle = make_bundle(
        transcript, transcript.compactions[0].summary or "", report, provider="anthropic",
        model="claude-x", instructions=f"focus; Authorization: Bearer {'b' * 30}",
        settings={"reserve_tokens": 16384, "api_key": FAKE_KEY, "headers": {"x-api-key": "k" * 20},
                  "env": {"OPENAI_API_KEY": "z" * 30}, "base_url": "http://127.0.0.1:8080"})
    data = bundle_to_dict(bundle)
    assert set(data["settings"]) == {"reserve_tokens", "base_url"}
    jsonschema.Draft202012Validator(export_schema()).validate(data)
    for fmt in ("md", "json", "html"):
        text = export_summary(bundle, fmt, tmp_path / f"k.{fmt}").read_text(encoding="utf-8")
        assert FAKE_KEY not in text and "b" * 30 not in text and "z" * 30 not in text
        assert "k" * 20 not in text
        assert "16384" in text


def test_markdown_export_carries_summary_and_audit(tmp_path: Path) -> None:
    summary = structured_summary("```python\nprint(1)\n```")
    path, ids = basic_session(tmp_path, summary=summary)
    bundle = bundle_for_compaction(load_transcript(path))
    text = export_summary(bundle, "md", tmp_path / "out.md").read_text(encoding="utf-8")
    assert summary in text
    assert "````text" in text  # the fence outgrows the summary's own fences
    assert f"Compaction: {ids['compaction']}" in text
    for check in bundle.report.checks:
        assert f"| {check.name} | {'PASS' if check.passed else 'FAIL'} |" in text
    assert "/compact Focus on" in text


def test_writes_are_atomic_and_errors_are_export_errors(tmp_path: Path) -> None:
    path, _ = basic_session(tmp_path)
    bundle = bundle_for_compaction(load_transcript(path))
    target = tmp_path / "out" / "a.json"
    with pytest.raises(ExportError, match="does not exist"):
        export_summary(bundle, "json", target)
    target.parent.mkdir()
    target.write_text("old")
    export_summary(bundle, "json", target)
    assert json.loads(target.read_text())["kind"] == "sessionlens.audited-summary"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.json"]  # no temp files left
    with pytest.raises(ExportError, match="unknown export format"):
        export_summary(bundle, "pdf", target)  # type: ignore[arg-type]
    with pytest.raises(ExportError, match="folder"):
        export_summary(bundle, "md", tmp_path)


@pytest.mark.samples
def test_sample_exports_validate(samples_dir: Path, tmp_path: Path) -> None:
    for prefix in ("01_", "03_"):
        transcript = load_transcript(sample_path(samples_dir, prefix))
        for comp in transcript.compactions:
            data = bundle_to_dict(bundle_for_compaction(transcript, comp.id))
            jsonschema.Draft202012Validator(export_schema()).validate(data)
            assert data["compaction_id"] == comp.id
    # sample 01's second compaction took out the 66 entries its first one kept verbatim
    transcript = load_transcript(sample_path(samples_dir, "01_"))
    second = transcript.compactions[1].id
    data = bundle_to_dict(bundle_for_compaction(transcript, second))
    assert data["covered"]["carried_tail_count"] == 66
    out = export_summary(bundle_for_compaction(transcript, second), "md", tmp_path / "s01.md")
    assert "66 of them the previous compaction kept verbatim" in out.read_text(encoding="utf-8")


def test_export_of_a_sessionlens_compaction_names_its_provider(tmp_path: Path) -> None:
    """QA: exporting a compaction SessionLens itself wrote said "Provider / model: not
    recorded" although the entry's ``sessionlens`` field records them."""
    path, ids = basic_session(tmp_path)
    before = load_transcript(path)
    record = CompactionRecord(structured_summary(), ids["kept"], 999, tokens_after=321,
                              provider="offline", model="extractive", template="structured",
                              audit_passed=True, instructions="focus on the parser")
    written = write_compaction(before, record, "append", store_path=None)
    after = load_transcript(path)
    bundle = bundle_for_compaction(after, written.compaction_entry_id)
    assert (bundle.provider, bundle.model) == ("offline", "extractive")
    assert bundle.instructions == "focus on the parser"
    assert bundle.settings["tokens_after"] == 321
    data = json.loads(export_summary(bundle, "json", tmp_path / "o.json").read_text("utf-8"))
    jsonschema.Draft202012Validator(export_schema()).validate(data)
    assert (data["provider"], data["model"]) == ("offline", "extractive")
    md = export_summary(bundle, "md", tmp_path / "o.md").read_text("utf-8")
    assert "offline / extractive" in md
    other = bundle_for_compaction(after, ids["compaction"])  # written by someone else
    assert (other.provider, other.model, other.instructions) == (None, None, "")


def test_an_export_never_claims_a_focus_that_did_nothing(tmp_path: Path) -> None:
    path, ids = basic_session(tmp_path)
    before = load_transcript(path)
    record = CompactionRecord(structured_summary(), ids["kept"], 999, provider="offline",
                              instructions="Focus on the kubernetes rollout",
                              focus_matched=False)
    written = write_compaction(before, record, "append", store_path=None)
    bundle = bundle_for_compaction(load_transcript(path), written.compaction_entry_id)
    assert bundle.focus_applied is False
    md = export_summary(bundle, "md", tmp_path / "o.md").read_text("utf-8")
    assert "(not applied: nothing in the summarized entries matched them)" in md
    data = json.loads(export_summary(bundle, "json", tmp_path / "o.json").read_text("utf-8"))
    jsonschema.Draft202012Validator(export_schema()).validate(data)
    assert data["focus_applied"] is False
