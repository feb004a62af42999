"""Drift along a chain: how successive compaction summaries grow, repeat and forget.

Each compaction summarizes the previous summary plus what came after it, so along a chain
the summaries are "summaries of summaries" (users-and-peers.md §4 idea 9). Three things
drift: size (a summary that keeps growing eats the window it was meant to free), sections
(a heading that appears twice in one summary is an earlier summary nested inside a newer
one), and specifics (paths, commands, ids that one summary carried and the next dropped,
sometimes to come back later). Pure: works on loaded transcripts, no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine.contract.identifiers import Identifier, extract_identifiers
from sessionlens.engine.contract.templates import heading_lines
from sessionlens.engine.model import Entry, Transcript
from sessionlens.engine.tokens.estimate import estimate_entry_tokens

__all__ = ["SummaryPoint", "SectionTrack", "IdentifierTrack", "DriftReport", "analyze_drift",
           "summary_identifiers"]


@dataclass(frozen=True, slots=True)
class SummaryPoint:
    """One compaction of the chain, in chain order, compared with the one before it."""

    index: int
    path: Path
    compaction_id: str
    timestamp: str | None
    on_active_path: bool
    chars: int
    #: pi's chars/4 estimate of the summary as the model sees it.
    tokens: int
    tokens_before: int | None
    #: Markdown heading lines, in order (repeats kept).
    headings: tuple[str, ...]
    #: Headings written more than once in this summary (a nested older summary).
    repeated_headings: tuple[str, ...]
    #: Identifier keys in this summary.
    identifiers: tuple[str, ...]
    #: Compared with the previous summary (empty for the first).
    appeared: tuple[Identifier, ...]
    disappeared: tuple[Identifier, ...]
    #: Appeared here after being missing from the previous summary but present earlier.
    reappeared: tuple[Identifier, ...]
    #: chars / previous chars (None for the first, or after an empty one).
    growth: float | None


@dataclass(frozen=True, slots=True)
class SectionTrack:
    """A heading across the chain: in which summaries, and most copies in one summary."""

    heading: str
    present_in: tuple[int, ...]
    max_copies: int
    #: Summaries that hold the heading more than once.
    repeated_in: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class IdentifierTrack:
    """One identifier across the chain: where it was carried and where it was lost."""

    value: str
    cls: str
    key: str
    present_in: tuple[int, ...]
    #: Summaries (indexes) that dropped it after the previous one carried it.
    lost_at: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DriftReport:
    points: tuple[SummaryPoint, ...]
    sections: tuple[SectionTrack, ...]
    identifiers: tuple[IdentifierTrack, ...]

    @property
    def repeated_sections(self) -> tuple[SectionTrack, ...]:
        """Headings written more than once inside one summary somewhere along the chain."""
        return tuple(s for s in self.sections if s.max_copies > 1)

    @property
    def lost_identifiers(self) -> tuple[IdentifierTrack, ...]:
        """Identifiers some summary dropped and no later summary brought back."""
        last = len(self.points) - 1
        return tuple(i for i in self.identifiers
                     if i.lost_at and (not i.present_in or i.present_in[-1] < last))

    @property
    def total_growth(self) -> float | None:
        """Last summary size over the first (None with fewer than two, or a first empty)."""
        if len(self.points) < 2 or self.points[0].chars == 0:
            return None
        return self.points[-1].chars / self.points[0].chars


def summary_identifiers(entry_id: str, text: str) -> tuple[Identifier, ...]:
    """The identifiers of a summary text, by the same rules audits use on transcripts."""
    probe = Entry(type="branch_summary", id=entry_id, parent_id=None, timestamp=None, line=0,
                  summary=text)
    return extract_identifiers((probe,))


def _compactions(transcripts: Sequence[Transcript]) -> list[tuple[Transcript, Entry]]:
    """Every distinct compaction in chain order (a successor's inherited copies once)."""
    seen: set[str] = set()
    out: list[tuple[Transcript, Entry]] = []
    for t in transcripts:
        for e in t.compactions:
            if e.id not in seen:
                seen.add(e.id)
                out.append((t, e))
    return out


def analyze_drift(transcripts: Sequence[Transcript]) -> DriftReport:
    """Drift over the compactions of ``transcripts`` (give them oldest first)."""
    points: list[SummaryPoint] = []
    idents_by_point: list[dict[str, Identifier]] = []
    ever: dict[str, Identifier] = {}
    paths: dict[int, frozenset[str]] = {}
    for n, (t, e) in enumerate(_compactions(transcripts)):
        text = e.summary or ""
        heads = heading_lines(text)
        counts = Counter(heads)
        found = {f"{i.cls}:{i.key}": i for i in summary_identifiers(e.id, text)}
        prev = idents_by_point[-1] if idents_by_point else None
        appeared = tuple(i for k, i in found.items() if prev is not None and k not in prev)
        disappeared = tuple(i for k, i in (prev or {}).items() if k not in found)
        reappeared = tuple(i for k, i in found.items() if prev is not None
                           and k not in prev and k in ever)
        before = points[-1].chars if points else 0
        points.append(SummaryPoint(
            n, t.path, e.id, e.timestamp, e.id in paths.setdefault(id(t), frozenset(t.active_path)), len(text),
            estimate_entry_tokens(e), e.tokens_before, heads,
            tuple(h for h in dict.fromkeys(heads) if counts[h] > 1), tuple(found),
            appeared, disappeared, reappeared, len(text) / before if before else None))
        idents_by_point.append(found)
        for k, i in found.items():
            ever.setdefault(k, i)
    sections: dict[str, tuple[list[int], int, list[int]]] = {}
    for p in points:
        counts = Counter(p.headings)
        for h, c in counts.items():
            where, most, twice = sections.get(h, ([], 0, []))
            where.append(p.index)
            if c > 1:
                twice.append(p.index)
            sections[h] = (where, max(most, c), twice)
    tracks: list[IdentifierTrack] = []
    for k, ident in ever.items():
        present = tuple(n for n, found in enumerate(idents_by_point) if k in found)
        lost = tuple(n for n in range(1, len(points))
                     if k in idents_by_point[n - 1] and k not in idents_by_point[n])
        tracks.append(IdentifierTrack(ident.value, ident.cls, k, present, lost))
    return DriftReport(tuple(points),
                       tuple(SectionTrack(h, tuple(w), m, tuple(r))
                             for h, (w, m, r) in sections.items()),
                       tuple(tracks))
