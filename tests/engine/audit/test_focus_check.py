"""The audit's focus check, and "focus applied" derived from it everywhere (issue 39 item 1:
the offline summarizer claimed a focus it had not applied and the audit passed)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from fixtures.factories import TranscriptBuilder
from fixtures.sample_writes import run_cli_json
from fixtures.written import read_rows
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.export.summary import export_schema

FOCUS = "Focus on imap.zoho.com and the SMTP port"


def _mail_session(tmp_path: Path) -> Path:
    """The host and the port sit in a tool call and a long tool output, not in any sentence
    the summarizer would lift."""
    b = TranscriptBuilder()
    b.user("Set up the mail account for the bot, please.")
    call = b.call("write_config", path="config/mail.json",
                  content='{"imap": {"host": "imap.zoho.com", "port": 993}}')
    b.assistant("Writing the mail config.", call)
    b.result(call, "ok")
    probe = b.call("bash", command="nc -vz smtp.zoho.com 465")
    b.assistant("Checking the outgoing server.", probe)
    b.result(probe, "\n".join(f"line {i}: waiting" for i in range(30))
             + "\nConnection to smtp.zoho.com 465 port [tcp/SMTP] succeeded!")
    b.user("Thanks. Now write the README section about mail.")
    b.assistant("Writing it.")
    b.user("And then stop.")
    b.assistant("Stopping.")
    return b.write(tmp_path / "mail.jsonl")


def test_the_focus_check_names_the_terms_the_summary_lacks() -> None:
    b = TranscriptBuilder()
    b.user("Use the colour #b5bd68 for the header and keep the SMTP relay.")
    b.assistant("Done.")
    t = b.build()
    ids = [e.id for e in t.path_entries()]
    report = audit_summary(t, "## Goal\n- the header colour\n", summarized_entry_ids=ids,
                           template="none", instructions="Focus on #b5bd68 and the SMTP relay")
    check = report.check("focus")
    assert not check.passed and not report.passed
    assert "missing: #b5bd68, SMTP, relay" in check.detail
    assert report.focus_applied is False
    kept = audit_summary(t, "#b5bd68 for the SMTP relay", summarized_entry_ids=ids,
                         template="none", instructions="Focus on #b5bd68 and the SMTP relay")
    assert kept.check("focus").passed and kept.focus_applied is True
    none = audit_summary(t, "x", summarized_entry_ids=ids, template="none")
    assert "focus" not in [c.name for c in none.checks] and none.focus_applied is None


def test_focus_applied_is_what_the_check_found_in_compact_record_and_export(
        tmp_path: Path) -> None:
    src = _mail_session(tmp_path)
    code, out = run_cli_json("compact", str(src), "--keep-recent", "0", "--instructions", FOCUS,
                             "--write", "append")
    assert code == 0, out
    focus = next(c for c in out["audit"]["checks"] if c["name"] == "focus")
    # the offline summarizer carries every term the span mentions, and says so truthfully
    assert focus["passed"], focus
    for term in ("imap.zoho.com", "SMTP", "port"):
        assert term.casefold() in out["summary"].casefold()
    assert out["focus_applied"] is True and out["audit"]["focus_applied"] is True
    record = read_rows(src)[-1]
    assert record["sessionlens"]["focusApplied"] is True
    # a text that lacks them fails the check, and nothing anywhere says "applied"
    bad = tmp_path / "bad.md"
    bad.write_text(out["summary"].replace("imap.zoho.com", "the IMAP host"), "utf-8")
    code, again = run_cli_json("audit", str(src), "--summary-file", str(bad),
                               "--compaction", record["id"])
    assert code == 0 and not again["passed"] and again["focus_applied"] is False
    assert "missing: imap.zoho.com" in next(
        c["detail"] for c in again["checks"] if c["name"] == "focus")
    target = tmp_path / "x.json"
    code, _ = run_cli_json("export", str(src), "--format", "json", "-o", str(target))
    data = json.loads(target.read_text("utf-8"))
    jsonschema.Draft202012Validator(export_schema()).validate(data)
    assert data["focus_applied"] is True and data["audit"]["focus"]["missing"] == []
