"""What one recorded compaction did with the tail the previous compaction had kept.

Releases differ: pi 0.58 (and older) summarized only what came after the previous
compaction, so that tail left the context unsummarized; pi 0.63.1 and later (pi#2608, 1.6
too) and OpenClaw 2026.9 summarize from the previous ``firstKeptEntryId``, so it is
summarized again. Which one a compaction did is read from the file, compaction by
compaction, never assumed for "pi":

1. its ``details`` file lists: a file read or edited only in that tail is listed when the
   tail was summarized, and missing when it was not;
2. its ``tokensBefore``: pi 0.58 estimated the previous summary and what followed it, pi 0.63+
   the whole rebuilt context, pi 1.6 also ignores usage older than the last compaction; when
   the recorded figure is one release's and not the other's, that says which ran;
3. the release that wrote it, when the file shows one: rows only pi 1.6 writes (stored system
   messages, a compaction's ``systemMessage``, ``usage`` and ``context_edit`` rows) mean
   0.63.1 or later; a version 1 or 2 file means a release before 0.58.3 (which writes
   version 3, and every pi rewrites an older file as version 3 when it opens it).

Otherwise the finding says the file does not show it. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sessionlens.engine.model import Entry
from sessionlens.engine.plan.prepare import prepare_rule
from sessionlens.engine.tokens.estimate import pi_entry_tokens

__all__ = ["KeptTailFinding", "TailVerdict", "kept_tail_finding"]

TailVerdict = Literal["summarized-again", "not-summarized", "unknown", "none"]
_PI16_ROWS = frozenset({"usage", "context_edit"})


@dataclass(frozen=True, slots=True)
class KeptTailFinding:
    """The verdict, the evidence in words, and the sentence the audit shows."""

    verdict: TailVerdict
    evidence: str
    text: str


def _tail_files(tail: Sequence[Entry], after: Sequence[Entry], prev: Entry) -> set[str]:
    """Files read or edited in the tail and nowhere the other releases would look."""
    def files(rows: Sequence[Entry]) -> set[str]:
        out: set[str] = set()
        for e in rows:
            for c in e.message.tool_calls if e.message is not None else ():
                path = c.arguments.get("path") if isinstance(c.arguments, dict) else None
                if isinstance(path, str) and c.name in ("read", "write", "edit"):
                    out.add(path)
        return out
    known = set()
    if prev.file_ops is not None and not prev.from_hook:
        known = set(prev.file_ops.read_files) | set(prev.file_ops.modified_files)
    return files(tail) - files(after) - known


def _by_files(comp: Entry, tail: Sequence[Entry], after: Sequence[Entry],
              prev: Entry) -> TailVerdict | None:
    if comp.file_ops is None or comp.from_hook:
        return None
    only = _tail_files(tail, after, prev)
    if not only:
        return None
    listed = set(comp.file_ops.read_files) | set(comp.file_ops.modified_files)
    return "summarized-again" if only <= listed else "not-summarized" if not (
        only & listed) else None


def _by_tokens(comp: Entry, before: Sequence[Entry]) -> tuple[TailVerdict | None, str]:
    if comp.tokens_before is None:
        return None, ""
    est = [pi_entry_tokens(e) for e in before]
    old = prepare_rule(before, "pi-0.58", 0, est).tokens_before
    new = {prepare_rule(before, rule, 0, est).tokens_before for rule in ("pi-0.73", "pi-1.6")}
    recorded = comp.tokens_before
    if recorded == old and recorded not in new:
        return "not-summarized", f"its tokensBefore {recorded:,} is pi 0.58's count"
    if recorded in new and recorded != old:
        return "summarized-again", (f"its tokensBefore {recorded:,} is the whole rebuilt "
                                    f"context, as pi 0.63+ counts it (pi 0.58: {old:,})")
    return None, ""


def kept_tail_finding(before: Sequence[Entry], comp: Entry, tail: Sequence[Entry],
                      prev: Entry | None, file_format: str = "") -> KeptTailFinding:
    """What ``comp`` (recorded after ``before``, its path) did with ``tail``, the entries the
    previous compaction ``prev`` had kept verbatim (see the module docstring)."""
    if prev is None or prev.type != "compaction" or not tail:
        return KeptTailFinding("none", "", "")
    n = len(tail)
    after = before[next(i for i, e in enumerate(before) if e.id == prev.id) + 1:]
    verdict = _by_files(comp, tail, after, prev)
    evidence = "its file lists name files only that tail touched" if verdict else ""
    if verdict is None:
        verdict, evidence = _by_tokens(comp, before)
    if verdict is None and any(e.type in _PI16_ROWS or e.role == "system"
                               or e.system_message is not None for e in (*before, comp)):
        verdict, evidence = "summarized-again", "pi 1.6 wrote the file, and pi 0.63.1+ does"
    if verdict is None and file_format in ("pi-v1", "pi-v2"):
        verdict, evidence = "not-summarized", (f"a version {file_format[-1]} file, written by "
                                               "a pi release before 0.58.3")
    if verdict == "summarized-again":
        text = (f"this compaction summarized again the {n} entries compaction {prev.id} had "
                f"kept verbatim ({evidence})")
    elif verdict == "not-summarized":
        text = (f"this compaction did not show its summarizer the {n} entries compaction "
                f"{prev.id} had kept verbatim ({evidence}): they left the context unsummarized")
    else:
        verdict = "unknown"
        text = (f"the {n} entries compaction {prev.id} had kept verbatim left the context "
                "here; the file does not show whether its summarizer saw them")
    return KeptTailFinding(verdict, evidence, text)
