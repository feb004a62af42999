"""No secret leaves the recall server: every string of every answer goes through ``secrets``.

The exports' rule (``find_secrets`` then ``redact``: ``[REDACTED:<kind>]``) is applied to
each string field of a result, nested records and tuples included. A pattern only knows a
value in its context (``DEPLOY_KEY=<hex>``, ``aws_secret_access_key = ...``), and an answer
often shows a value without it: an audit's dropped identifier, a snippet starting after the
``=``. So each tool also collects the secret values of the whole entries its answer was
cut from (``known_secrets``), and those values are removed wherever they appear.
Texts cut here (original text pages) are redacted whole before they are cut; a snippet cut
by the search index or the trace ("…" at an end) also loses the partial word at that end,
and the base64 lines after a redacted private-key header go with it (a snippet flattens
the line breaks that the key pattern follows).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

from sessionlens.engine.secrets import find_secrets, redact

__all__ = ["KNOWN_PLACEHOLDER", "known_secrets", "redact_result", "redact_text",
           "safe_snippet"]

T = TypeVar("T")
_ELLIPSIS = "…"
#: What a known value is replaced by (its kind was decided where its context was).
KNOWN_PLACEHOLDER = "[REDACTED:secret]"
#: base64 words after a redacted key header: the key body the flattened snippet kept.
_KEY_BODY = re.compile(r"(\[REDACTED:private_key\])((?:\s+[A-Za-z0-9+/=]{16,})+)")
#: A known value shorter than this is left to the patterns (it would blank common words).
_MIN_KNOWN = 6


def known_secrets(texts: Iterable[str]) -> frozenset[str]:
    """Every secret value the detector finds in ``texts`` (each read whole, in context);
    the lines of a private key count one by one, as a snippet may show any of them."""
    values: set[str] = set()
    for text in texts:
        for f in find_secrets(text):
            value = text[f.start:f.end]
            values.add(value)
            if f.kind == "private_key":
                values.update(w for w in re.split(r"\s+|\\n", value)
                              if len(w) >= 16 and "-----" not in w)
    return frozenset(v for v in values if len(v) >= _MIN_KNOWN)


def redact_text(text: str, known: Collection[str] = ()) -> str:
    """``text`` with every secret the detector finds, and every ``known`` value, replaced."""
    if not text:
        return text
    out = redact(text, find_secrets(text))
    out = _KEY_BODY.sub(r"\1 [REDACTED:private_key]", out)
    for value in sorted(known, key=len, reverse=True):
        if value in out:
            out = out.replace(value, KNOWN_PLACEHOLDER)
    return out


def safe_snippet(snippet: str, known: Collection[str] = ()) -> str:
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
    body = redact_text(body.strip(), known)
    return (_ELLIPSIS if lead else "") + body + (_ELLIPSIS if trail else "")


def redact_result(value: T, known: Collection[str] = ()) -> T:
    """A copy of ``value`` (a result record, tuple, dict or string) with every string
    redacted (``known`` values too); numbers, booleans and None unchanged."""
    return _walk(value, tuple(sorted(known, key=len, reverse=True)))  # type: ignore[no-any-return]


def _walk(value: Any, known: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact_text(value, known)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _walk(getattr(value, f.name), known)
                   for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(_walk(v, known) for v in value)
    if isinstance(value, list):
        return [_walk(v, known) for v in value]
    if isinstance(value, dict):
        return {_walk(k, known): _walk(v, known) for k, v in value.items()}
    return value
