"""Rendering an export dict as Markdown, JSON or an inert, self-contained HTML page.

Transcripts are full of hostile-looking text (HTML, ``<script>``, ``javascript:`` links,
100 KB lines): the HTML page therefore escapes every value with ``html.escape``, makes no
links, loads nothing, runs nothing, and carries a Content-Security-Policy that allows only
its own inline stylesheet (pinned by hash), so even a browser bug in escaping cannot fetch
or execute anything. Long lines wrap through CSS instead of being cut.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html import escape
from typing import Any

from sessionlens.engine.audit.dropped import md_code

__all__ = ["BIDI_CONTROLS", "HTML_CSS", "content_security_policy", "html_head", "md_fence",
           "render_html", "render_json", "render_markdown", "visible_bidi"]

#: The bidirectional embedding, override and isolate controls (U+202A-202E, U+2066-2069):
#: raw in a page they reorder what a reader sees ("exe.txt" shown for "txt.exe"), so every
#: export shows them as their escapes instead (issue 39 item 16).
BIDI_CONTROLS = "".join(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
_BIDI_VISIBLE = {ord(c): f"\\u{ord(c):04X}" for c in BIDI_CONTROLS}


def visible_bidi(text: str) -> str:
    """``text`` with each bidi control written as ``\\u202E`` (in JSON that is the same
    string, escaped; in Markdown and HTML it is visible text that reorders nothing)."""
    return text.translate(_BIDI_VISIBLE)

HTML_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f6f4;border:1px solid #ddd;padding:.8em;white-space:pre-wrap;
overflow-wrap:anywhere;word-break:break-word}
table{border-collapse:collapse;width:100%;table-layout:fixed}
td,th{border:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top;
overflow-wrap:anywhere;word-break:break-word}
.pass{color:#176317;font-weight:600}.fail{color:#a11;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dd{margin:0;overflow-wrap:anywhere}
""".strip()



def content_security_policy(css: str, *, inline_images: bool = False) -> str:
    """Everything denied except the one inline stylesheet ``css`` (pinned by its hash) and,
    with ``inline_images``, images embedded as ``data:`` URIs (nothing is fetched)."""
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    images = "data:" if inline_images else "'none'"
    return (f"default-src 'none'; style-src 'sha256-{digest}'; img-src {images}; "
            "script-src 'none'; connect-src 'none'; font-src 'none'; object-src 'none'; "
            "frame-src 'none'; base-uri 'none'; form-action 'none'")


def html_head(title: str, css: str, *, inline_images: bool = False) -> list[str]:
    """The opening lines of an inert page: charset, CSP, no referrer, the stylesheet."""
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" '
            f'content="{escape(content_security_policy(css, inline_images=inline_images))}">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{escape(title)}</title>", f"<style>{css}</style></head><body>"]


def render_json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


# --------------------------------------------------------------------------- Markdown

def md_fence(text: str) -> str:
    """A code fence longer than any run of backticks or tildes inside ``text``."""
    longest = max((len(m) for m in re.findall(r"`+|~+", text)), default=0)
    return "`" * max(3, longest + 1)


def _code(value: str) -> str:
    """Inline code on one line (runs of whitespace, newlines included, become one space)."""
    return md_code(" ".join(value.split()))


def _carried(d: dict[str, Any]) -> str:
    """", N of them the previous compaction kept verbatim" when there are any."""
    n = d["covered"].get("carried_tail_count") or 0
    return f", {n} of them the previous compaction kept verbatim" if n else ""


def _status(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def _headline(a: dict[str, Any]) -> list[str]:
    """The rule's verdict, SessionLens's losses and its checks: three lines, never one word."""
    h = a["headline"]
    return [h["rule"], h["losses"], h["checks"]]


def _focus_note(d: dict[str, Any]) -> str:
    """Never let an export claim a focus that did nothing."""
    applied = d.get("focus_applied")
    missing = (d.get("audit", {}).get("focus") or {}).get("missing") or []
    if applied is False and missing:
        return " (not applied: the summary lacks " + ", ".join(map(str, missing)) + ")"
    if applied is False:
        return " (not applied: nothing in the summarized entries matched them)"
    return " (applied)" if applied else ""


def _provenance(d: dict[str, Any]) -> str:
    made = d.get("provenance")
    return str(made["label"]) if isinstance(made, dict) else "provenance not recorded"


def render_markdown(d: dict[str, Any]) -> str:
    a = d["audit"]
    fence = md_fence(d["summary"]["text"])
    lines = [
        "# Audited compaction summary", "",
        *(f"**{line}**  " for line in _headline(a)), "",
        f"- Source: {_code(d['source']['path'])} (sha256 `{d['source']['sha256']}`)",
        f"- Session: {d['source']['session_id'] or 'unknown'}",
        f"- Compaction: {d['compaction_id'] or 'new (not yet written)'}",
        f"- Covers entries {d['covered']['first_entry_id'] or '-'} .. "
        f"{d['covered']['last_entry_id'] or '-'} ({d['covered']['entry_count']} entries"
        f"{_carried(d)})",
        f"- Summary sha256: `{d['summary']['sha256']}` ({d['summary']['chars']} characters)",
        f"- Provider / model: {d['provider'] or 'not recorded'} / {d['model'] or 'not recorded'}",
        f"- Summary: {_provenance(d)}",
        f"- Template: {d['template']} (detected: {a['detected_template']})",
        f"- Identifier policy: {a['identifier_policy']}",
        f"- Created: {d['created_at']}; schema version {d['schema_version']}",
    ]
    if d["instructions"]:
        lines.append(f"- Instructions: {_code(d['instructions'])}{_focus_note(d)}")
    if d["settings"]:
        lines.append("- Settings: " + ", ".join(f"{k}={v}" for k, v in d["settings"].items()))
    lines += ["", "## Summary", "", fence + "text", d["summary"]["text"], fence, "",
              "## Audit", "", "| check | result | detail | reasons |", "|---|---|---|---|"]
    for c in a["checks"]:
        detail = c["detail"].replace("|", "\\|").replace("\n", " ")
        reasons = ", ".join(c["reasons"]).replace("|", "\\|")
        lines.append(f"| {c['name']} | {_status(c['passed'])} | {detail} | {reasons} |")
    ids = a["identifiers"]
    lines += ["", f"Identifiers kept: {len(ids['found'])}; missing: {len(ids['missing'])}"]
    lines += [f"- missing {_code(v)}" for v in ids["missing"]]
    lines += ["", "## Coverage by class", "", "| class | kept | total |", "|---|---|---|"]
    lines += [f"| {c['class']} | {c['found']} | {c['total']} |" for c in d["coverage"] if c["total"]]
    lines += ["", f"## Dropped ({len(d['dropped'])})", ""]
    lines += [f"- [{x['class']}] {_code(x['value'])} (entries {', '.join(x['entry_ids'][:5])})"
              for x in d["dropped"]] or ["Nothing was dropped."]
    rfence = md_fence(d["recovery"]["instruction"] + d["recovery"]["addendum"])
    lines += ["", "## Recovery pack", "", "Instruction:", "", rfence + "text",
              d["recovery"]["instruction"], rfence, "", "Addendum:", "", rfence + "markdown",
              d["recovery"]["addendum"].rstrip("\n"), rfence, ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- HTML

def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _row(*cells: Any, head: bool = False) -> str:
    tag = "th" if head else "td"
    return "<tr>" + "".join(f"<{tag}>{_e(c)}</{tag}>" for c in cells) + "</tr>"


def _status_html(passed: bool) -> str:
    cls = "pass" if passed else "fail"
    return f'<span class="{cls}">{_status(passed)}</span>'


def render_html(d: dict[str, Any]) -> str:
    a = d["audit"]
    meta = [
        ("Source", d["source"]["path"]), ("Source sha256", d["source"]["sha256"]),
        ("Session", d["source"]["session_id"]), ("Compaction", d["compaction_id"]),
        ("Covered entries", f"{d['covered']['first_entry_id'] or '-'} .. "
                            f"{d['covered']['last_entry_id'] or '-'} ({d['covered']['entry_count']}"
                            f"{_carried(d)})"),
        ("Summary sha256", d["summary"]["sha256"]), ("Provider", d["provider"]),
        ("Model", d["model"]), ("Summary", _provenance(d)), ("Template", f"{d['template']} (detected: {a['detected_template']})"),
        ("Identifier policy", a["identifier_policy"]), ("Instructions", (d["instructions"] + _focus_note(d)) if d["instructions"] else ""),
        ("Settings", json.dumps(d["settings"], ensure_ascii=False)),
        ("Created", d["created_at"]), ("Schema version", d["schema_version"]),
    ]
    out = [
        *html_head(f"SessionLens audit {d['compaction_id'] or ''}", HTML_CSS),
        "<h1>Audited compaction summary</h1>",
        "<p>" + "<br>".join(f'<b class="{cls}">{_e(line)}</b>' for cls, line in zip(
            ("pass" if a["headline"]["rule_accepts"] else "fail",
             "pass" if a["headline"]["loss_level"] == "none" else "fail",
             "pass" if a["passed"] else "fail"), _headline(a), strict=True)) + "</p>",
        "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meta) + "</dl>",
        "<h2>Summary</h2>", f"<pre>{_e(d['summary']['text'])}</pre>",
        "<h2>Audit</h2><table>", _row("check", "result", "detail", "reasons", head=True),
    ]
    for c in a["checks"]:
        out.append(f"<tr><td>{_e(c['name'])}</td><td>{_status_html(c['passed'])}</td>"
                   f"<td>{_e(c['detail'])}</td><td>{_e(', '.join(c['reasons']))}</td></tr>")
    out.append("</table>")
    ids = a["identifiers"]
    out.append(f"<p>Identifiers kept: {len(ids['found'])}; missing: {len(ids['missing'])}</p>")
    if ids["missing"]:
        out.append("<ul>" + "".join(f"<li><code>{_e(v)}</code></li>" for v in ids["missing"]) + "</ul>")
    out += ["<h2>Coverage by class</h2><table>", _row("class", "kept", "total", head=True)]
    out += [_row(c["class"], c["found"], c["total"]) for c in d["coverage"] if c["total"]]
    out += ["</table>", f"<h2>Dropped ({len(d['dropped'])})</h2>", "<table>",
            _row("class", "value", "entries", head=True)]
    out += [_row(x["class"], x["value"], ", ".join(x["entry_ids"])) for x in d["dropped"]]
    out += ["</table>", "<h2>Recovery pack</h2>", "<p>Instruction:</p>",
            f"<pre>{_e(d['recovery']['instruction'])}</pre>", "<p>Addendum:</p>",
            f"<pre>{_e(d['recovery']['addendum'])}</pre>", "</body></html>", ""]
    return "\n".join(out)
