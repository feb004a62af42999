"""The terms of a focus instruction, and which of them a summary kept.

"Focus on imap.zoho.com and the SMTP port" asks the summary to carry three things:
``imap.zoho.com``, ``SMTP`` and ``port``. A term is an identifier written in the
instruction (anything with a dot, slash, ``#``, ``@``, ``:``, ``_``, a digit or an inner
capital), a quoted phrase, or a significant word; words that only say how to summarize
("focus", "keep", "details") and stop words ("on", "the") are no terms. The audit's
"focus" check requires every term that occurs in the summarized span to occur in the
summary (case-insensitive, at a word start); a term the span never mentions is reported,
not required. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .ask import STOP_WORDS
from .templates import QUALITY_FEEDBACK_HEAD

__all__ = ["FocusCoverage", "focus_coverage", "focus_terms", "term_in"]

#: Words of an instruction that say how to summarize, not what about.
INSTRUCTION_WORDS = frozenset("""
focus focuses focusing focused keep keeping preserve retain include mention emphasize
emphasise prioritize prioritise especially mainly mostly particular particularly primarily
summary summarize summarise summarizing important details detail everything anything things
thing stuff related regarding concerning around make sure note notes only also exact exactly
verbatim list all every what which section sections part parts info information context
please pay attention attend highlight cover covering care
""".split())
_QUOTED = re.compile(r"\"([^\"]{2,200})\"|“([^”]{2,200})”|`([^`]{2,200})`|'([^'\s][^']{0,198}[^'\s])'")
_TOKEN = re.compile(r"\S+")
_EDGE = ".,;:!?()[]{}<>\"'“”‘’`"
_IDENTIFIER_MARK = re.compile(r"[./#@:_\\\d]|[a-z][A-Z]|^[A-Z]{2,}[a-z]")
_WORD = re.compile(r"^[^\W\d_][\w'-]*$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def focus_terms(instructions: str) -> tuple[str, ...]:
    """The focus terms of ``instructions`` (the quality loop's feedback left out), in the
    order written, each once: quoted phrases and identifiers as written, words lowercased."""
    own = instructions.split(QUALITY_FEEDBACK_HEAD, 1)[0]
    terms: list[str] = []
    for m in _QUOTED.finditer(own):
        terms.append(next(g for g in m.groups() if g).strip())
    rest = _QUOTED.sub(" ", own)
    for raw in _TOKEN.findall(rest):
        token = raw.strip(_EDGE)
        if not token:
            continue
        if _IDENTIFIER_MARK.search(token):
            terms.append(token)
            continue
        word = _norm(token)
        if _CJK.search(word) or (len(word) > 1 and word not in STOP_WORDS
                                 and word not in INSTRUCTION_WORDS and _WORD.match(word)):
            terms.append(token if token.isupper() and len(token) > 1 else word)
    seen: dict[str, str] = {}
    for t in terms:
        seen.setdefault(_norm(t), t)
    return tuple(seen.values())


def term_in(term: str, text: str) -> bool:
    """Whether ``text`` mentions ``term``: case-insensitive, starting at a word start (a
    CJK term anywhere); a plain word matches by its stem ("errors" finds "Error")."""
    t, hay = _norm(term), _norm(text)
    if _CJK.search(t):
        return t in hay
    if _WORD.match(t) and len(t) > 3 and t.endswith("s") and not t.endswith("ss"):
        t = t[:-3] if t.endswith("ies") else t[:-2] if t.endswith(("ses", "xes")) else t[:-1]
    # a word start: no Latin letter or digit before it (CJK text runs into Latin words)
    lead = r"(?<![0-9a-z_])" if t[:1].isalnum() or t[:1] == "_" else ""
    return re.search(lead + re.escape(t), hay) is not None


@dataclass(frozen=True, slots=True)
class FocusCoverage:
    """Which focus terms the span holds and which of those the summary kept."""

    terms: tuple[str, ...]
    in_span: tuple[str, ...]
    kept: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def applied(self) -> bool | None:
        """None without focus terms; True when the span holds some and the summary kept
        every one of them; False otherwise (nothing to apply it to is no applied focus)."""
        if not self.terms:
            return None
        return bool(self.in_span) and not self.missing


def focus_coverage(instructions: str, span_texts: Iterable[str], summary: str) -> FocusCoverage:
    """The focus terms of ``instructions`` against the span's texts and the summary."""
    terms = focus_terms(instructions)
    if not terms:
        return FocusCoverage((), (), (), ())
    span = "\n".join(span_texts)
    in_span = tuple(t for t in terms if term_in(t, span))
    kept = tuple(t for t in in_span if term_in(t, summary))
    return FocusCoverage(terms, in_span, kept, tuple(t for t in in_span if t not in kept))
