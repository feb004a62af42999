"""OpenClaw's own identifier rule, reproduced exactly (transcript-format.md §3.6).

The safeguard's strict audit fails a summary that lacks any of at most 12 "opaque
identifiers" taken from the last 10 messages. SessionLens reports that verdict as OpenClaw's,
beside its own whole-span coverage, so it must extract exactly what OpenClaw extracts.
"""

from __future__ import annotations

import re

from sessionlens.engine.secrets import find_secrets

__all__ = [
    "blank_secrets","AUDIT_RECENT_MESSAGES", "OPENCLAW_MAX_IDENTIFIERS", "extract_opaque_identifiers",
           "is_pure_hex", "trim_identifier"]

#: OpenClaw extracts the audited identifiers from this many of the last messages.
AUDIT_RECENT_MESSAGES = 10
#: OpenClaw keeps at most this many identifiers for its strict check.
OPENCLAW_MAX_IDENTIFIERS = 12

_OPENCLAW_PARTS = (
    r"[A-Fa-f0-9]{8,}",
    r"https?://\S+",
    r"/[\w.-]{2,}(?:/[\w.-]+)+",
    r"[A-Za-z]:\\[\w\\.-]+",
    r"[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5}",
    r"\b\d{6,}\b",
)
_OPENCLAW_RE = re.compile("|".join(_OPENCLAW_PARTS), re.ASCII)
#: The same without host:port, whose backtracking is quadratic on long runs of word
#: characters; it can only match where a ':' is, so colon-free chunks skip it.
_OPENCLAW_NO_HOST_RE = re.compile("|".join(p for i, p in enumerate(_OPENCLAW_PARTS) if i != 4),
                                  re.ASCII)
_CHUNK = re.compile(r"\S+")
#: Full-width and CJK brackets, quotes and stops: a URL written in Chinese or Japanese
#: prose runs straight into them (``…config.git`）``), and no identifier ends with one.
_WIDE_OPEN = "（［｛「『【〔〈《“‘"
_WIDE_CLOSE = "）］｝」』】〕〉》”’，。、；：！？…"
_LEAD_TRIM = re.compile(rf"^[(\"'`\[{{<{_WIDE_OPEN}]+")
_TAIL_TRIM = re.compile(rf"[)\]\"'`,;:.!?<>{_WIDE_CLOSE}]+$")
_PURE_HEX = re.compile(r"[A-Fa-f0-9]{8,}", re.ASCII)


def is_pure_hex(value: str) -> bool:
    """True for a run of 8+ hex digits (matched case-insensitively everywhere)."""
    return _PURE_HEX.fullmatch(value) is not None


def trim_identifier(value: str) -> str:
    """Without leading brackets and quotes and trailing punctuation (OpenClaw's sanitizer)."""
    return _TAIL_TRIM.sub("", _LEAD_TRIM.sub("", value.strip()))


def blank_secrets(text: str) -> str:
    """``text`` with every secret turned to spaces: a key (or a piece of one, like the
    numbers inside a Slack token) is never an identifier a summary must keep, since the
    summarizer only ever sees its placeholder."""
    found = find_secrets(text)
    if not found:
        return text
    out, pos = [], 0
    for f in found:
        out.append(text[pos:f.start])
        out.append(" " * (f.end - f.start))
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def extract_opaque_identifiers(text: str, limit: int = OPENCLAW_MAX_IDENTIFIERS) -> tuple[str, ...]:
    """OpenClaw's identifier extraction: the strict audit requires every one of these.

    Matches are trimmed of leading brackets/quotes and trailing punctuation, pure hex is
    upper-cased, values under 4 characters are dropped, duplicates removed, first ``limit`` kept.
    """
    seen: dict[str, None] = {}
    text = blank_secrets(text)
    # No alternative can match whitespace, so scanning chunk by chunk finds the same matches.
    for chunk in _CHUNK.finditer(text):
        word = chunk.group(0)
        pattern = _OPENCLAW_RE if ":" in word else _OPENCLAW_NO_HOST_RE
        for match in pattern.finditer(word):
            value = trim_identifier(match.group(0))
            if is_pure_hex(value):
                value = value.upper()
            if len(value) >= 4:
                seen.setdefault(value, None)
                if len(seen) >= limit:
                    return tuple(seen)
    return tuple(seen)
