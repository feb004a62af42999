"""A search box's text as FTS5 understands it, and where its terms occur in a chunk.

Words are AND-ed (OpenClaw's memory search does the same), ``"quoted text"`` is a phrase,
and a trailing ``*`` makes a prefix. Each word goes to FTS5 as a quoted string, so
punctuation can never be read as query syntax: ``ERR_CONN_RESET`` or ``src/app.py`` become
phrases of their tokens, exactly as the text was indexed. ``term_spans`` finds the same
matches in Python (whole tokens, any case), for picking the entry and highlighting.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .index_db import fts_text

__all__ = ["Term", "fts_query", "parse_query", "term_spans"]

_PARTS = re.compile(r'"([^"]*)"|(\S+)')
#: What unicode61 keeps in a token: letters and digits (``_`` and punctuation separate).
_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Term:
    text: str
    prefix: bool = False

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(_TOKEN.findall(fts_text(self.text)))


def parse_query(query: str) -> tuple[Term, ...]:
    """The terms of a query (terms without a letter or digit are dropped)."""
    out = []
    for m in _PARTS.finditer(query):
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        prefix = m.group(2) is not None and raw.endswith("*")
        term = Term(raw.rstrip("*") if prefix else raw, prefix)
        if term.tokens:
            out.append(term)
    return tuple(out)


def fts_query(terms: tuple[Term, ...], op: str = "AND") -> str:
    """An FTS5 MATCH expression for the terms."""
    parts = []
    for t in terms:
        phrase = " ".join(t.tokens).replace('"', '""')
        parts.append(f'"{phrase}"' + (" *" if t.prefix else ""))
    return f" {op} ".join(parts)


@functools.lru_cache(maxsize=256)  # built once per query term, not once per chunk
def _pattern(term: Term) -> re.Pattern[str]:
    toks = term.tokens
    pieces = []
    for i, tok in enumerate(toks):
        body = re.escape(tok)
        if len(tok) == 1 and not tok.isascii():  # a CJK character is a token by itself
            pieces.append(body)
            continue
        left = r"(?<![^\W_])"
        right = "" if term.prefix and i == len(toks) - 1 else r"(?![^\W_])"
        pieces.append(left + body + right)
    return re.compile(r"[\W_]*".join(pieces), re.IGNORECASE)


def term_spans(text: str, terms: tuple[Term, ...]) -> list[tuple[int, int, int]]:
    """Every match as (start, end, term index), in text order."""
    spans: list[tuple[int, int, int]] = []
    for n, term in enumerate(terms):
        spans.extend((m.start(), m.end(), n) for m in _pattern(term).finditer(text)
                     if m.end() > m.start())
    spans.sort()
    return spans
