"""A notification for each automatic compaction an agent's integration journals.

The composition root calls ``mount_journal_notices`` once, after the Live page and the
Memory tab exist. The journal is followed by ``JournalWatch`` (off the UI thread); each new
line that is not a manual compaction says its verdict where the Live page says compactions
it sees itself: the Live banner (whose "Open its audit" opens that compaction's audit), the
status bar and, where the desktop has a tray, a desktop notification (a click opens the
audit too). Lines about the opened file join the Memory tab's journal list at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from sessionlens.engine import AGENT_NAMES, journal_compaction_id, load_transcript

from .journal_watch import JournalNews, JournalWatch

if TYPE_CHECKING:
    from sessionlens.engine import JournalEntry
    from sessionlens.gui.compaction.mount import CompactionParts
    from sessionlens.gui.main_window import MainWindow
    from sessionlens.gui.memory.mount import MemoryParts
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import TaskRunner

    from .mount import LiveParts


def _tr(text: str) -> str:
    return QCoreApplication.translate("JournalNotice", text)


def notice_text(e: JournalEntry) -> str:
    """What the notification says about one journal line: who compacted which file, the
    audit's verdict, who wrote the summary (and why not SessionLens, when it did not)."""
    agent = AGENT_NAMES.get(e.agent, e.agent)
    # OpenClaw hands over messages, not a file: its lines name no file to show or open
    name = Path(e.session_file).name if e.session_file else _tr("a session")
    if e.writer == "none":
        return _tr("%1 did not compact %2: %3").replace("%1", agent).replace(
            "%2", name).replace("%3", e.fallback_reason or _tr("blocked"))
    if e.audit_passed is None:
        verdict = _tr("no audit")
    elif e.audit_passed:
        verdict = _tr("audit passed")
    else:
        verdict = _tr("audit FAILED (%1)").replace("%1", ", ".join(e.failed_checks))
    who = (_tr("summary by SessionLens (%1)").replace("%1", e.summarizer or "?")
           if e.writer == "sessionlens" else _tr("%1's own summary").replace("%1", agent))
    text = _tr("%1 compacted %2 (%3): %4; %5").replace("%1", agent).replace(
        "%2", name).replace("%3", e.trigger or "auto").replace("%4", verdict).replace("%5", who)
    if e.pins_missing:
        text += _tr("; %1 pinned entries missing").replace("%1", str(len(e.pins_missing)))
    return text


@dataclass(frozen=True, slots=True)
class JournalNoticeParts:
    """What ``mount_journal_notices`` made (tests reach in through this)."""

    watch: JournalWatch
    #: The last notice shown, and the journal line it is about.
    last: list[tuple[str, JournalEntry]]


def mount_journal_notices(window: MainWindow, session: SessionController, tasks: TaskRunner,
                          state_dir: Path, live: LiveParts, memory: MemoryParts,
                          compaction: CompactionParts) -> JournalNoticeParts:
    """Follow the journal under ``state_dir`` and notify; started at once (it reads only
    the journal's size until a line is appended)."""
    watch = JournalWatch(tasks, state_dir, lambda: session.path, parent=window)
    audit = compaction.audit
    last: list[tuple[str, JournalEntry]] = []

    def open_audit(entry: JournalEntry) -> None:
        path = Path(entry.session_file)

        def job(_r: object, _c: object) -> str | None:
            return journal_compaction_id(entry, load_transcript(path))

        def opened(cid: str | None) -> None:
            if cid is None:
                window.statusBar().showMessage(_tr("%1 holds no compaction yet").replace(
                    "%1", path.name), 15_000)
                return
            session.open_at(path, cid)
            window.workbench.setCurrentIndex(window.workbench.indexOf(audit))

        tasks.run(job, on_done=opened, on_error=lambda exc: window.statusBar().showMessage(
            str(exc), 15_000))

    def on_news(news: JournalNews) -> None:
        if news.about_focus and news.focus is not None and session.path == news.focus:
            panel = memory.panel.journal
            panel.set_entries(panel.entries + news.about_focus)
        for entry in news.entries:
            if entry.trigger == "manual":
                continue
            text = notice_text(entry)
            last[:] = [(text, entry)]

            def opener(e: JournalEntry = entry) -> None:
                open_audit(e)

            can_open = bool(entry.session_file) and entry.writer != "none"
            live.panel.show_notice(text, opener if can_open else None)
            live.notify(text, opener if can_open else None)

    watch.appended.connect(on_news)
    watch.start()
    return JournalNoticeParts(watch, last)
