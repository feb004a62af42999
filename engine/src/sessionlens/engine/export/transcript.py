"""Export a whole transcript: Markdown, or a self-contained, inert HTML page.

Users ask to keep or share a session as a readable document: every message along the active
path, the model's thinking, each tool call with its arguments and its result, images, and
each compaction shown as the boundary it was, with the audit of what its summary kept. The
HTML page follows the summary export's rules (``render``): every value escaped, nothing
linked, loaded or run, a Content-Security-Policy that allows only its own stylesheet and
images embedded as ``data:`` URIs of raster types. Secrets are blanked as in every export.
No highlighting library is needed: code is shown as preformatted text.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Literal

from sessionlens.engine.audit.report import AuditReport
from sessionlens.engine.errors import ExportError
from sessionlens.engine.model import (
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
)
from sessionlens.engine.persist.provenance import entry_provenance
from sessionlens.engine.transcript_secrets import blank_values, transcript_secret_values

from .render import HTML_CSS, html_head, md_fence
from .summary import write_export

__all__ = ["TRANSCRIPT_FORMATS", "TranscriptExport", "TranscriptFormat", "export_transcript",
           "render_transcript_html", "render_transcript_markdown"]

TranscriptFormat = Literal["md", "html"]
TRANSCRIPT_FORMATS: tuple[TranscriptFormat, ...] = ("md", "html")

#: Image types shown inline; others (SVG can carry script) are only named.
_RASTER = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_CSS = HTML_CSS + """
.entry{border-left:3px solid #ccc;padding:.2em .8em;margin:1em 0}
.user{border-color:#3465a4}.assistant{border-color:#4e9a06}.toolResult,.bashExecution{border-color:#888}
.error{border-color:#a11}.meta{color:#666;font-size:12px}
.boundary{border:2px dashed #a66;background:#fbf3f0;padding:.6em 1em;margin:1.5em 0}
details>summary{cursor:default;color:#555}img{max-width:100%;height:auto}
""".strip()
_SHOWN_TYPES = frozenset({"message", "compaction", "branch_summary", "custom_message"})


@dataclass(frozen=True, slots=True)
class TranscriptExport:
    """What was written: the file, how many entries it shows, and how many secrets it blanked."""

    path: Path
    entries: int
    compactions: int
    secrets_redacted: int


class _Scrub:
    """Blank secrets in every text shown, counting them: what each text shows itself, and
    the transcript's secrets found elsewhere in context (``transcript_secrets``)."""

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        self.count = 0
        self.known = known or {}

    def __call__(self, text: str) -> str:
        out, n = blank_values(text, self.known)
        self.count += n
        return out


def _entries(transcript: Transcript) -> Iterator[Entry]:
    for entry in transcript.path_entries():
        if entry.type in _SHOWN_TYPES:
            yield entry


def _speaker(msg: Message) -> str:
    if msg.role == "toolResult":
        return f"Tool result ({msg.tool_name or 'tool'})" + (" — error" if msg.is_error else "")
    if msg.role == "bashExecution":
        return "Shell command"
    if msg.role == "assistant" and msg.model:
        return f"Assistant ({msg.model})"
    return {"user": "User", "assistant": "Assistant", "custom": "Extension message"}.get(
        msg.role, msg.role)


def _arguments(call: ToolCallBlock) -> str:
    if call.partial_json is not None and call.arguments in (None, {}):
        return call.partial_json
    try:
        return json.dumps(call.arguments, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return str(call.arguments)


def _image_data(block: ImageBlock) -> str | None:
    """The base64 payload when it is a raster image that decodes, else None (not embedded)."""
    if block.mime_type not in _RASTER:
        return None
    data = "".join(block.data.split())
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data


def _other_text(entry: Entry) -> str:
    """The text of a non-message entry shown (a branch summary, an extension's message)."""
    return entry.summary or "\n".join(b.text for b in entry.content if isinstance(b, TextBlock))


def _boundary_facts(transcript: Transcript, entry: Entry) -> str:
    before = entry.tokens_before if entry.tokens_before is not None else "not recorded"
    made = entry_provenance(transcript, entry)
    return (f"Tokens before: {before}; first kept entry: {entry.first_kept_entry_id or 'none'}"
            f"; summary {made.label if made is not None else 'provenance not recorded'}")


def _audit_lines(report: AuditReport) -> list[str]:
    """The audit of a boundary: the rule's verdict and SessionLens's losses, apart."""
    kept = ", ".join(f"{c.cls} {c.found}/{c.total}" for c in report.coverage if c.total)
    return ["Audit:", *report.headline.lines, f"Kept: {kept or 'nothing to cover'}"]


# --------------------------------------------------------------------------- Markdown

def _md_block(text: str, info: str = "text") -> list[str]:
    fence = md_fence(text)
    return [fence + info, text, fence]


def _md_message(entry: Entry, msg: Message, scrub: _Scrub) -> list[str]:
    out = [f"### {_speaker(msg)}", "", f"*entry {entry.id}, {entry.timestamp or 'no time'}*", ""]
    if msg.role == "bashExecution":
        out += _md_block(scrub(f"$ {msg.command or ''}\n{msg.output or ''}"), "console")
        if msg.exit_code not in (None, 0):
            out += ["", f"exit code {msg.exit_code}"]
    for block in msg.content:
        if isinstance(block, TextBlock) and block.text.strip():
            text = scrub(block.text)
            out += _md_block(text) if msg.role == "toolResult" else [text]
        elif isinstance(block, ThinkingBlock):
            body = "(redacted thinking)" if block.redacted else scrub(block.thinking)
            out += ["> **Thinking**", ">"] + [f"> {line}" for line in body.splitlines()]
        elif isinstance(block, ToolCallBlock):
            out += [f"**Tool call** `{block.name}` ({block.id})", ""]
            out += _md_block(scrub(_arguments(block)), "json")
        elif isinstance(block, ImageBlock):
            data = _image_data(block)
            out.append(f"![image {block.mime_type}](data:{block.mime_type};base64,{data})"
                       if data else f"*[image {block.mime_type}, not embedded]*")
        out.append("")
    if msg.error_message:
        out += [f"**Error:** {scrub(msg.error_message)}", ""]
    return out


def render_transcript_markdown(transcript: Transcript,
                               audits: Mapping[str, AuditReport] | None = None,
                               scrub: _Scrub | None = None) -> str:
    """The transcript's active path as Markdown (``audits``: compaction id -> its audit)."""
    scrub = scrub or _Scrub(transcript_secret_values(transcript))
    audits = audits or {}
    lines = [f"# Transcript {transcript.session_id or transcript.path.name}", "",
             f"- Source: `{transcript.path}`", f"- Format: {transcript.format}",
             f"- Entries on the active path: {len(transcript.active_path)}", ""]
    for entry in _entries(transcript):
        if entry.type == "compaction":
            lines += ["---", "", f"## Compaction {entry.id} ({entry.timestamp or 'no time'})", "",
                      _boundary_facts(transcript, entry), ""]
            if entry.id in audits:
                audit = _audit_lines(audits[entry.id])
                lines += [audit[0], "", *(f"- {a}" for a in audit[1:]), ""]
            lines += ["Summary:", ""] + _md_block(scrub(entry.summary or "")) + ["", "---", ""]
        elif entry.message is not None:
            lines += _md_message(entry, entry.message, scrub)
        else:
            lines += [f"### {entry.type.replace('_', ' ').capitalize()}", ""] \
                + _md_block(scrub(_other_text(entry))) + [""]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- HTML

def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _html_message(entry: Entry, msg: Message, scrub: _Scrub) -> list[str]:
    cls = "error" if msg.is_error or msg.stop_reason == "error" else msg.role
    out = [f'<section class="entry {_e(cls)}" id="e-{_e(entry.id)}">',
           f"<h3>{_e(_speaker(msg))}</h3>",
           f'<p class="meta">entry {_e(entry.id)}, {_e(entry.timestamp or "no time")}</p>']
    if msg.role == "bashExecution":
        shell = scrub(f"$ {msg.command or ''}\n{msg.output or ''}")
        out.append(f"<pre>{_e(shell)}</pre>")
        if msg.exit_code not in (None, 0):
            out.append(f"<p>exit code {_e(msg.exit_code)}</p>")
    for block in msg.content:
        if isinstance(block, TextBlock) and block.text.strip():
            out.append(f"<pre>{_e(scrub(block.text))}</pre>")
        elif isinstance(block, ThinkingBlock):
            body = "(redacted thinking)" if block.redacted else scrub(block.thinking)
            out.append(f"<details><summary>Thinking</summary><pre>{_e(body)}</pre></details>")
        elif isinstance(block, ToolCallBlock):
            out.append(f"<p><strong>Tool call</strong> <code>{_e(block.name)}</code> "
                       f"({_e(block.id)})</p><pre>{_e(scrub(_arguments(block)))}</pre>")
        elif isinstance(block, ImageBlock):
            data = _image_data(block)
            out.append(f'<p><img alt="image {_e(block.mime_type)}" '
                       f'src="data:{_e(block.mime_type)};base64,{_e(data)}"></p>' if data else
                       f"<p><em>[image {_e(block.mime_type)}, not embedded]</em></p>")
    if msg.error_message:
        out.append(f"<p><strong>Error:</strong> {_e(scrub(msg.error_message))}</p>")
    out.append("</section>")
    return out


def render_transcript_html(transcript: Transcript,
                           audits: Mapping[str, AuditReport] | None = None,
                           scrub: _Scrub | None = None) -> str:
    """The transcript's active path as one inert HTML page (see the module docstring)."""
    scrub = scrub or _Scrub(transcript_secret_values(transcript))
    audits = audits or {}
    title = f"Transcript {transcript.session_id or transcript.path.name}"
    out = html_head(title, _CSS, inline_images=True)
    out += [f"<h1>{_e(title)}</h1>",
            f"<dl><dt>Source</dt><dd>{_e(transcript.path)}</dd><dt>Format</dt>"
            f"<dd>{_e(transcript.format)}</dd><dt>Entries on the active path</dt>"
            f"<dd>{len(transcript.active_path)}</dd></dl>"]
    for entry in _entries(transcript):
        if entry.type == "compaction":
            out += [f'<section class="boundary" id="e-{_e(entry.id)}">',
                    f"<h2>Compaction {_e(entry.id)} ({_e(entry.timestamp or 'no time')})</h2>",
                    f"<p>{_e(_boundary_facts(transcript, entry))}</p>"]
            if entry.id in audits:
                out.append("<p>" + "<br>".join(_e(a) for a in _audit_lines(audits[entry.id]))
                           + "</p>")
            out += [f"<details open><summary>Summary</summary><pre>{_e(scrub(entry.summary or ''))}"
                    "</pre></details>", "</section>"]
        elif entry.message is not None:
            out += _html_message(entry, entry.message, scrub)
        else:
            out += [f'<section class="entry" id="e-{_e(entry.id)}">',
                    f"<h3>{_e(entry.type.replace('_', ' ').capitalize())}</h3>",
                    f"<pre>{_e(scrub(_other_text(entry)))}</pre></section>"]
    out += ["</body></html>", ""]
    return "\n".join(out)


def export_transcript(transcript: Transcript, fmt: TranscriptFormat, out: Path | str, *,
                      audits: Mapping[str, AuditReport] | None = None) -> TranscriptExport:
    """Write the transcript as ``fmt`` to ``out`` atomically (``audits``: compaction id ->
    its audit, shown at each boundary)."""
    renderers = {"md": render_transcript_markdown, "html": render_transcript_html}
    if fmt not in renderers:
        raise ExportError(f"unknown transcript export format {fmt!r} (choose md or html)")
    scrub = _Scrub(transcript_secret_values(transcript))
    written = write_export(out, renderers[fmt](transcript, audits, scrub))
    shown = list(_entries(transcript))
    return TranscriptExport(written, len(shown), sum(e.type == "compaction" for e in shown),
                            scrub.count)
