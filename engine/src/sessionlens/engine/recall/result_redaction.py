"""No secret leaves the recall server: every string of every answer goes through ``secrets``.

The exports' rule (``find_secrets`` then ``redact``: ``[REDACTED:<kind>]``) applied to each
string field of a result, nested records and tuples included. Texts this package cuts
itself (original text pages, trace snippets) are redacted whole before they are cut, so a
page or snippet boundary cannot split a secret past recognition; a snippet cut by the
search index ("…" at an end) loses the partial word at that end, which may be the
unrecognisable half of a secret, and the base64 lines following a redacted private-key
header go with it (a snippet flattens the line breaks the key pattern follows).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

from sessionlens.engine.secrets import find_secrets, redact

__all__ = ["redact_result", "redact_text", "safe_snippet"]

T = TypeVar("T")
_ELLIPSIS = "…"
#: base64 words after a redacted key header: the key body the flattened snippet kept.
_KEY_BODY = re.compile(r"(\[REDACTED:private_key\])((?:\s+[A-Za-z0-9+/=]{16,})+)")


def redact_text(text: str) -> str:
    """``text`` with every secret the detector finds replaced by its placeholder."""
    if not text:
        return text
    out = redact(text, find_secrets(text))
    return _KEY_BODY.sub(r"\1 [REDACTED:private_key]", out)


def safe_snippet(snippet: str) -> str:
    """A snippet cut out of a longer text, redacted, without the partial words at its cut
    ends (marked "…")."""
    body = snippet
    lead = body.startswith(_ELLIPSIS)
    trail = body.endswith(_ELLIPSIS)
    if lead:
        body = body[1:]
        cut = re.match(r"\S*", body)
        body = body[cut.end() if cut else 0:]
    if trail:
        body = body[:-1]
        cut = re.search(r"\S*$", body)
        body = body[:cut.start() if cut else len(body)]
    body = redact_text(body.strip())
    return (_ELLIPSIS if lead else "") + body + (_ELLIPSIS if trail else "")


def redact_result(value: T) -> T:
    """A copy of ``value`` (a result record, tuple, dict or string) with every string
    redacted; numbers, booleans and None unchanged."""
    return _walk(value)  # type: ignore[no-any-return]


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _walk(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(_walk(v) for v in value)
    if isinstance(value, list):
        return [_walk(v) for v in value]
    if isinstance(value, dict):
        return {_walk(k): _walk(v) for k, v in value.items()}
    return value
