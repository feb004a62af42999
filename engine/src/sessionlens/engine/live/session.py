"""One session followed live: its file's tail, its gauge, and what to say when it changes.

``LiveSession.poll`` is cheap when nothing changed (one ``stat``; for a session of OpenClaw's
SQLite store, ``<db>/<session id>``, one read-only query). A linear append of pi / OpenClaw
lines or store rows moves the gauge over the new entries alone (``gauge.advance``); a compaction,
a branch, a rewrite or another format reloads the file. A compaction that appeared is
audited at once (``audit_compaction_in_chain``, as ``sessionlens audit`` does), so the event
carries its verdict. The transcript a reload gives is kept for the next-cut preview
(``opened``); between reloads it lags the gauge by the appended entries (``stale_entries``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sessionlens.engine.audit.recorded import audit_compaction_in_chain
from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.opened import OpenedTranscript, Overrides, open_transcript
from sessionlens.engine.plan.rules import file_agent

from .events import THRESHOLD_NEAR_FRACTION, EventKind, LiveEvent, verdict_line
from .followers import FileFollower, Follower, follower_for
from .gauge import LiveGauge, advance, gauge_of

__all__ = ["LiveSession", "Opener"]

Opener = Callable[[Path], OpenedTranscript]


def _default_opener(overrides: Overrides) -> Opener:
    return lambda path: open_transcript(path, overrides)


class LiveSession:
    """A session being written. Not thread-safe: one caller polls it."""

    def __init__(self, path: Path, *, opener: Opener | None = None,
                 overrides: Overrides | None = None) -> None:
        self.path = path
        self._open = opener or _default_opener(overrides or Overrides())
        self.opened: OpenedTranscript
        self.gauge: LiveGauge
        self.agent = ""
        self.session_id: str | None = None
        self.follower: Follower = follower_for(path)
        self._what = "file" if isinstance(self.follower, FileFollower) else "session"
        #: Entries appended since ``opened`` was loaded (what the preview does not show yet).
        self.stale_entries = 0
        self._near_said = False
        self._load()

    # ------------------------------------------------------------------ reading

    def _load(self) -> None:
        self.follower.reset()
        self.opened = self._open(self.path)
        self.gauge = gauge_of(self.opened)
        self.stale_entries = 0
        self._leaf_id = self.opened.transcript.leaf_id
        self._appended_ids: set[str] = set()
        # worked out once per load: file_agent may scan every entry of a 100 MB file
        self.agent = file_agent(self.opened.transcript).agent
        header = self.opened.transcript.header
        self.session_id = header.id if header is not None else None

    def event(self, kind: EventKind, detail: str, *, compaction_id: str | None = None,
               verdict: str | None = None, passed: bool | None = None,
               dropped: tuple[str, ...] = ()) -> LiveEvent:
        return LiveEvent(kind, self.path, self.session_id, self.agent, self.gauge, detail,
                         compaction_id, verdict, passed, dropped)

    def started(self) -> LiveEvent:
        g = self.gauge
        return self.event("watching", f"watching: context {g.context_tokens:,} of threshold "
                                       f"{g.threshold:,} (window {g.context_window:,})")

    # ------------------------------------------------------------------ following

    def poll(self) -> list[LiveEvent]:
        """What happened since the last poll (empty when the file did not change)."""
        change = self.follower.step(self.opened.transcript, self._leaf_id, self._appended_ids)
        if change.kind == "none":
            return []
        if change.kind == "removed":
            return [self.event("removed", f"the {self._what} is gone")]
        before = set(e.id for e in self.opened.transcript.compactions)
        appended = change.appended
        if appended is not None and appended.linear:
            self.follower.accept()
            if appended.entries:
                self._leaf_id = appended.entries[-1].id
                self._appended_ids.update(e.id for e in appended.entries)
            self.gauge = advance(self.gauge, appended.entries)
            self.stale_entries += len(appended.entries)
            return self._context_events()
        try:
            self._load()
        except (OSError, SessionLensError) as exc:
            return [self.event("reloaded", f"could not read it again: {exc}")]
        events = [self._compaction_event(e.id) for e in self.opened.transcript.compactions
                  if e.id not in before]
        if change.kind == "rewritten" and not events:
            events.append(self.event("reloaded", f"the {self._what} was rewritten; read again"))
        return events + self._context_events()

    def _context_events(self) -> list[LiveEvent]:
        g = self.gauge
        left = ("" if g.turns_left is None else
                f", about {g.turns_left} turn{'' if g.turns_left == 1 else 's'} left")
        events = [self.event("context", f"context {g.context_tokens:,} of threshold "
                                         f"{g.threshold:,}{left}")]
        if g.headroom <= 0:
            events.append(self.event("over-threshold", f"context {g.context_tokens:,} is past "
                                      f"the threshold {g.threshold:,}: the agent compacts "
                                      "before its next turn"))
            self._near_said = True
        elif g.fraction_of_threshold >= THRESHOLD_NEAR_FRACTION and not self._near_said:
            events.append(self.event("threshold-near", f"{g.fraction_of_threshold:.0%} of the "
                                      f"threshold{left}"))
            self._near_said = True
        elif g.fraction_of_threshold < THRESHOLD_NEAR_FRACTION:
            self._near_said = False
        return events

    def _compaction_event(self, compaction_id: str) -> LiveEvent:
        try:
            report = audit_compaction_in_chain(self.opened.transcript, compaction_id).report
        except SessionLensError as exc:
            return self.event("compaction", f"compaction {compaction_id}: not audited ({exc})",
                               compaction_id=compaction_id)
        dropped = tuple(d.value for d in report.dropped)
        verdict = verdict_line(report.passed, dropped)
        return self.event("compaction", f"compaction {compaction_id}: {verdict}",
                           compaction_id=compaction_id, verdict=verdict, passed=report.passed,
                           dropped=dropped)
