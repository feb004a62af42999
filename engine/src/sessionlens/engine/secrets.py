"""Finding secrets in text before it leaves the machine, and blanking them out.

Summarization sends transcript text to a provider; transcripts often hold keys a user pasted
or a tool printed. The GUI shows these findings in its preview of what will be sent and can
redact them first. Patterns are deliberately specific (known key prefixes, JWT shape, PEM
blocks, credentials in URLs, bearer headers, ``password=`` assignments) so ordinary hashes
and ids are not flagged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SECRET_KINDS", "SecretFinding", "find_secrets", "redact"]


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """One secret: its kind, where it is (``text[start:end]``) and a safe preview."""

    kind: str
    start: int
    end: int
    #: First 4 characters and the length, never the secret itself.
    preview: str


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
        re.S)),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("url_password", re.compile(r"://[^\s/:@]+:(?P<s>[^\s/@]+)@")),
    ("bearer_token", re.compile(r"(?i)\bbearer (?P<s>[A-Za-z0-9._~+/=-]{16,})")),
    ("password_assignment", re.compile(
        r"(?i)\b(?:password|passwd|pwd|secret|api_key|apikey|token)[\"']?\s?[=:]\s?[\"']?"
        r"(?P<s>[^\s\"',;]{6,})")),
)
SECRET_KINDS = tuple(kind for kind, _ in _PATTERNS)


def _preview(value: str) -> str:
    return f"{value[:4]}… ({len(value)} chars)"


def find_secrets(text: str) -> tuple[SecretFinding, ...]:
    """Non-overlapping findings in text order (the earlier, more specific pattern wins).

    For URL credentials, bearer headers and ``password=`` the span covers only the secret
    part, so a redacted text still shows what kind of thing was there.
    """
    found: list[SecretFinding] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            group = "s" if "s" in pattern.groupindex else 0
            start, end = match.span(group)
            if end - start < 6 or any(start < f.end and f.start < end for f in found):
                continue
            found.append(SecretFinding(kind, start, end, _preview(match.group(group))))
    return tuple(sorted(found, key=lambda f: f.start))


def redact(text: str, findings: Sequence[SecretFinding]) -> str:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``."""
    out, pos = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        if f.start < pos:
            continue
        out.append(text[pos:f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)
