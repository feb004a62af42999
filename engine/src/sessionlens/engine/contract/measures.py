"""What a number measures: "175 ms" means nothing once "p99 latency" is gone.

A summary that keeps "175 ms" but not the "p99 latency" it measured has kept a number and
lost the fact. So each quantity is extracted with the words that say what it is (the
nearest content words before it in its clause, else after it), and a summary keeps the
quantity only if some line of it carries the number and those words together.
"""

from __future__ import annotations

import re

from .ask import STOP_WORDS

__all__ = ["MEANING_MAX_WORDS", "measured_subject", "meaning_in_line"]

#: At most this many words say what a quantity measures.
MEANING_MAX_WORDS = 2
#: How many words before (or after) a quantity are looked at.
_SCAN_WORDS = 6

#: Verbs and fillers that sit between a subject and its number ("latency went from 240 ms").
_FILLER = STOP_WORDS | frozenset("""
about approx approximately around roughly nearly almost exactly least most than per total
under over below above down up went goes go gone from took takes take taking dropped drops
rose rises increased increases decreased decreases reduced reduces grew grows fell falls
reached reaches hit hits set sets stays stayed stay used uses using measured averaged averages
peaked peaks only just now currently still already new old keep mind remember note equals
equal becomes became is was be are were been roughly around ~ time times vs versus
""".split())
_UNITS = frozenset("""
ms sec secs second seconds minute minutes min mins hour hours hr hrs day days us µs ns bytes
byte b kb kib mb mib gb gib tb tib token tokens char chars characters lines line mhz ghz fps
rps req s m h d k x
""".split())
_WORD = re.compile(r"(?<![\w-])[^\W\d_]\w{0,29}(?:-[^\W_]\w{0,29})?(?!\w)")
_CLAUSE_END = re.compile(r"[;!?\n|,(){}\[\]]|\.(?=\s|$)")


def _numeric(word: str) -> bool:
    """Numbers and units: skipped without counting ("from 240 ms to 175 ms")."""
    w = word.lower().rstrip(".")
    return w in _UNITS or re.fullmatch(r"[\d.,%]+", w) is not None


def _content(word: str) -> bool:
    w = word.lower().rstrip(".")
    return bool(w) and w not in _FILLER and not _numeric(w)


def _words_after(text: str, end: int) -> list[re.Match[str]]:
    after = _CLAUSE_END.search(text, end, min(len(text), end + 200))
    stop = after.start() if after else min(len(text), end + 200)
    return [m for m in _WORD.finditer(text, end, stop) if not _numeric(m.group(0))]


def _result(text: str, a: int, b: int, picked: list[re.Match[str]]) -> tuple[str, tuple[str, ...]]:
    return " ".join(text[a:b].split()), tuple(m.group(0).lower().rstrip(".") for m in picked)


def measured_subject(text: str, start: int, end: int) -> tuple[str, tuple[str, ...]]:
    """(phrase, meaning) of the quantity ``text[start:end]``.

    A noun right after the number names it ("2 GB RAM", "12% CPU"); otherwise the nearest
    content words before it in its clause do ("p99 latency went from 240 ms to 175 ms"),
    else any after it ("175 ms of p99"). ``phrase`` is the verbatim stretch holding the
    number and those words, ``meaning`` the words lower-cased; both empty when the clause
    says nothing about what the number is."""
    after = _words_after(text, end)
    if after and _content(after[0].group(0)):
        picked = [after[0]] + ([after[1]] if len(after) > 1 and _content(after[1].group(0))
                               and after[1].start() - after[0].end() <= 1 else [])
        return _result(text, start, picked[-1].end(), picked)
    before_cut = max((m.end() for m in _CLAUSE_END.finditer(text, max(0, start - 200), start)),
                     default=max(0, start - 200))
    words = [m for m in _WORD.finditer(text, before_cut, start) if not _numeric(m.group(0))]
    picked = [m for m in words[-_SCAN_WORDS:] if _content(m.group(0))][-MEANING_MAX_WORDS:]
    if picked:
        return _result(text, picked[0].start(), end, picked)
    picked = [m for m in after[:_SCAN_WORDS] if _content(m.group(0))][:MEANING_MAX_WORDS]
    if picked:
        return _result(text, start, picked[-1].end(), picked)
    return "", ()


def meaning_in_line(summary: str, position: int, meaning: tuple[str, ...]) -> bool:
    """Whether the summary line holding ``position`` also holds every meaning word."""
    if not meaning:
        return True
    line_start = summary.rfind("\n", 0, position) + 1
    line_end = summary.find("\n", position)
    line = summary[line_start: len(summary) if line_end < 0 else line_end].lower()
    return all(re.search(rf"(?<![\w]){re.escape(w)}", line) for w in meaning)
