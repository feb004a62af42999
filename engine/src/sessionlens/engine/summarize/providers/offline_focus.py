"""Focus instructions for the offline summarizer: what matches goes first and stays whole.

A model reads "Focus on the API decisions" and writes accordingly; the extractive summarizer
has to do it by matching. The instruction's content words ("api") pick the items that
mention them; words that name a kind of fact ("decisions", "errors", "paths") only count
when nothing else is asked for. Matched items lead their section and are the last to go
when the budget trims. When nothing in the span matches, the summarizer says so instead of
pretending it applied the focus.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sessionlens.engine.contract.ask import STOP_WORDS
from sessionlens.engine.contract.focus_terms import focus_terms, term_in
from sessionlens.engine.contract.identifiers import entry_text
from sessionlens.engine.contract.templates import QUALITY_FEEDBACK_HEAD
from sessionlens.engine.model import Entry

__all__ = ["Focus", "focus_items", "parse_focus"]

#: Words of an instruction that say how to summarize, not what about.
_INSTRUCTION_WORDS = frozenset("""
focus focusing focused keep preserve retain include mention emphasize emphasise prioritize
prioritise especially mainly mostly particular particularly primarily summary summarize
summarise summarizing important details detail everything anything things stuff related
regarding concerning around make sure note notes only also exact exactly verbatim list
all every what which section sections part parts info information context
""".split())
#: Words that name a kind of fact (a section) rather than a subject.
_KIND_WORDS = frozenset("""
decision decisions constraint constraints rule rules error errors failure failures file files
path paths command commands todo todos step steps progress identifier identifiers ask asks
request requests goal goals number numbers test tests question questions
""".split())
_TOKEN = re.compile(r"[^\W_][\w.+#-]*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _stem(word: str) -> str:
    """Plural and possessive endings off, so "decisions" finds "decision"."""
    word = word.removesuffix("'s")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True, slots=True)
class Focus:
    """The parsed focus: the stems an item must mention to match."""

    instructions: str
    terms: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.terms)

    def matches(self, item: str) -> bool:
        """Whether ``item`` mentions any focus term (word starts, case-insensitive)."""
        text = unicodedata.normalize("NFKC", item).casefold()
        for term in self.terms:
            if _CJK.search(term):
                if term in text:
                    return True
            elif re.search(rf"(?<![\w]){re.escape(term)}", text):
                return True
        return False

    def order(self, items: Iterable[str]) -> list[str]:
        """Matching items first, each group in its original order."""
        items = list(items)
        return [x for x in items if self.matches(x)] + [x for x in items if not self.matches(x)]


def parse_focus(instructions: str) -> Focus:
    """The focus terms of the user's instructions (the quality loop's feedback left out)."""
    own = instructions.split(QUALITY_FEEDBACK_HEAD, 1)[0]
    words = [w.strip(".-+#") for w in _TOKEN.findall(unicodedata.normalize("NFKC", own).casefold())]
    words = [w for w in words if w and w not in STOP_WORDS and w not in _INSTRUCTION_WORDS]
    subjects = [w for w in words if w not in _KIND_WORDS]
    chosen = subjects or words
    return Focus(instructions, tuple(dict.fromkeys(_stem(w) for w in chosen if len(w) > 1
                                                   or _CJK.search(w))))


#: The longest quote a focus item carries around its term.
_QUOTE_MAX = 240


def _quote(line: str, term: str) -> str:
    """``line`` (whitespace collapsed) cut to at most ``_QUOTE_MAX`` characters around the
    first mention of ``term``, at word boundaries, with "…" where it was cut."""
    line = " ".join(line.split())
    if len(line) <= _QUOTE_MAX:
        return line
    at = max(0, unicodedata.normalize("NFKC", line).casefold().find(
        unicodedata.normalize("NFKC", term).casefold()))
    start = max(0, at - _QUOTE_MAX // 3)
    if start:
        space = line.find(" ", start)
        start = space + 1 if 0 <= space < at else start
    end = min(len(line), start + _QUOTE_MAX)
    if end < len(line):
        space = line.rfind(" ", at + len(term), end)
        end = space if space > at else end
    return ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")


def focus_items(entries: Sequence[Entry], instructions: str, present: str) -> list[str]:
    """Items that carry each focus term (``contract.focus_terms``, the terms the audit's
    focus check requires) which the span mentions and ``present`` (the summary so far)
    lacks: the newest line of the span that mentions it, quoted verbatim."""
    out: list[str] = []
    for term in focus_terms(instructions):
        if term_in(term, present) or any(term_in(term, x) for x in out):
            continue
        for entry in reversed(entries):
            text = entry_text(entry)
            if not term_in(term, text):
                continue
            line = next((ln for ln in text.splitlines() if term_in(term, ln)), "")
            if line.strip():
                out.append(f"- Focus ({term}): {_quote(line, term)}")
                break
    return out
