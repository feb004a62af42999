"""Turns one entry into a rich-text document: Markdown, highlighted JSON, images.

Kept apart from the widget so the rendering can be tested without a window. Long payloads
are cut before highlighting (pygments on 400 KB of tool output would stall the UI thread);
the raw line stays one click away.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer, JsonLexer, TextLexer

if TYPE_CHECKING:
    from sessionlens.engine import Entry, EntryTokens, ImageBlock

#: Longest text highlighted or shown inline; the rest is one click away in "raw".
MAX_INLINE = 20_000

Tr = Callable[[str], str]


def _formatter(dark: bool) -> HtmlFormatter[str]:
    return HtmlFormatter(noclasses=True, nowrap=False, style="monokai" if dark else "friendly",
                         prestyles="white-space: pre-wrap; font-family: monospace; margin: 0;")


def clip(text: str, limit: int = MAX_INLINE) -> tuple[str, int]:
    """The text cut to ``limit`` characters, and how many were left out."""
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def code_html(text: str, lang: str, dark: bool) -> str:
    """Highlighted code as inline-styled HTML (Qt's rich text understands inline styles)."""
    body, rest = clip(text)
    lexer = {"json": JsonLexer(), "bash": BashLexer()}.get(lang, TextLexer())
    out = str(highlight(body, lexer, _formatter(dark)))
    if rest:
        out += f"<p><i>… {rest:,} more characters (see raw JSON)</i></p>"
    return out


def json_text(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def image_bytes(block: ImageBlock) -> bytes | None:
    try:
        return base64.b64decode(block.data, validate=False)
    except (ValueError, TypeError):
        return None


def tokens_html(entry: Entry, tokens: EntryTokens | None, encoding: str, tr: Tr) -> str:
    """The three labelled numbers: reported usage, exact count, OpenClaw/pi estimates."""
    cells = []
    usage = entry.message.usage if entry.message is not None else None
    if usage is not None:
        cells.append(
            f"<b>{tr('Reported')}</b>: {usage.context_tokens:,} "
            f"<span style='color:gray'>({tr('in')} {usage.input:,} · {tr('out')} {usage.output:,}"
            f" · {tr('cache r/w')} {usage.cache_read:,}/{usage.cache_write:,})</span>")
    else:
        cells.append(f"<b>{tr('Reported')}</b>: —")
    if tokens is not None:
        cells.append(f"<b>{tr('Exact')}</b> ({html.escape(encoding)}): {tokens.exact:,}")
        cells.append(f"<b>{tr('Estimate')}</b> (pi chars/4): {tokens.estimate_pi:,} · "
                     f"OpenClaw: {tokens.estimate_openclaw:,}")
    else:
        cells.append(f"<b>{tr('Exact')}</b>: {tr('counting…')}")
    return "<p>" + " &nbsp;|&nbsp; ".join(cells) + "</p>"


def header_html(entry: Entry, label: str | None, tr: Tr) -> str:
    m = entry.message
    what = m.role if m is not None else entry.type
    bits = [f"<span style='font-size:large'><b>{html.escape(what)}</b></span>",
            f"<code>{html.escape(entry.id)}</code>", html.escape(entry.timestamp or "")]
    if m is not None and m.model:
        bits.append(html.escape(f"{m.provider}/{m.model}"))
    if m is not None and m.stop_reason and m.stop_reason not in ("stop", "toolUse"):
        bits.append(f"<span style='color:#d64541'><b>{html.escape(m.stop_reason)}</b></span>")
    if label:
        bits.append(f"<span style='color:#b8860b'><b>{tr('label')}:</b> {html.escape(label)}</span>")
    bits.append(f"{tr('line')} {entry.line}")
    return "<p>" + " &nbsp;·&nbsp; ".join(bits) + "</p>"


def error_text(text: str) -> str:
    """The error as a person reads it: a JSON body in it pretty-printed, and the newlines
    escaped inside its strings shown as line breaks (providers put whole tracebacks there)."""
    start = text.find("{")
    if start >= 0:
        try:
            body = json.loads(text[start:])
        except ValueError:
            body = None
        if body is not None:
            text = text[:start] + json_text(body)
    return text.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\t", "    ")


def error_html(text: str) -> str:
    body = html.escape(error_text(text[:MAX_INLINE]))
    return f"<p style='color:#d64541; white-space:pre-wrap'><b>{body}</b></p>"


def fold_link(key: str, title: str, open_: bool) -> str:
    arrow = "▾" if open_ else "▸"
    return f"<p><a href='fold:{key}'>{arrow} {html.escape(title)}</a></p>"


def block_parts(entry: Entry) -> list[tuple[str, Any]]:
    """The entry's content as ("markdown"|"thinking"|"tool"|"image"|"code"|"error", value)."""
    parts: list[tuple[str, Any]] = []
    m = entry.message
    if m is None:
        if entry.summary is not None:
            parts.append(("markdown", entry.summary))
        for b in entry.content:
            if b.kind == "text":
                parts.append(("markdown", b.text))
        if entry.file_ops is not None and (entry.file_ops.read_files or entry.file_ops.modified_files):
            parts.append(("code", ("json", json_text({
                "readFiles": list(entry.file_ops.read_files),
                "modifiedFiles": list(entry.file_ops.modified_files)}))))
        if entry.data is not None:
            parts.append(("code", ("json", json_text(entry.data))))
        return parts
    if m.error_message:
        parts.append(("error", m.error_message))
    if m.role == "bashExecution":
        parts.append(("code", ("bash", f"$ {m.command or ''}\n{m.output or ''}")))
        if m.exit_code not in (None, 0):
            parts.append(("error", f"exit code {m.exit_code}"))
        return parts
    for b in m.content:  # blocks carry a ``kind`` tag, so no class checks are needed
        if b.kind == "text":
            if m.role == "toolResult":
                text = b.text
                lang = "json" if text.lstrip().startswith(("{", "[")) else "text"
                parts.append(("code", (lang, text)))
            else:
                parts.append(("markdown", b.text))
        elif b.kind == "thinking":
            parts.append(("thinking", "(redacted)" if b.redacted else b.thinking))
        elif b.kind == "toolCall":
            parts.append(("tool", b))
        elif b.kind == "image":
            parts.append(("image", b))
    return parts
