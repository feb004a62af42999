"""TraceController: follow one fact through the open file and its chain, off the UI thread.

The chain (the file, its predecessors and successors) is loaded once per opened file by the
engine's ``load_chain_transcripts`` and kept for the next query; ``trace_fact`` and
``describe_trace`` give the answer the panel shows, the same sentence ``sessionlens trace``
prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from sessionlens.engine import describe_trace, load_chain_transcripts, trace_fact
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    from pathlib import Path

    from sessionlens.engine import FactTrace, Transcript
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner


@dataclass(frozen=True, slots=True)
class TraceAnswer:
    """One query's trace and its sentence, with the chain it walked."""

    trace: FactTrace
    verdict: str
    chain: tuple[Transcript, ...]
    #: Files of the chain that could not be read ("path: reason").
    warnings: tuple[str, ...] = ()


class TraceController(QObject):
    """Runs fact traces for the open session."""

    started = Signal(str)          # the query
    ready = Signal(object)         # TraceAnswer
    failed = Signal(str)

    def __init__(self, session: SessionController, tasks: TaskRunner,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks = session, tasks
        self._chain: tuple[Path, tuple[Transcript, ...], tuple[str, ...]] | None = None
        self.answer: TraceAnswer | None = None
        session.loaded.connect(self._forget)

    def _forget(self, _t: object) -> None:
        self._chain, self.answer = None, None

    def trace(self, text: str) -> None:
        """Trace ``text`` (stripped; nothing happens for an empty query)."""
        query = text.strip()
        t = self._session.transcript
        if not query or t is None:
            return
        cached = self._chain if self._chain is not None and self._chain[0] == t.path else None

        def job(_p: Progress, _c: CancelCheck) -> TraceAnswer:
            if cached is not None:
                chain, warnings = cached[1], cached[2]
            else:
                loaded, diags = load_chain_transcripts(t.path)
                # the open transcript stands for its own file (the loaded copy may lag it)
                chain = tuple(t if c.path == t.path else c for c in loaded) or (t,)
                warnings = tuple(f"{d.path}: {d.reason}" for d in diags)
            found = trace_fact(chain, query)
            return TraceAnswer(found, describe_trace(found), chain, warnings)

        def done(answer: TraceAnswer) -> None:
            if self._session.transcript is not t:
                return
            self._chain = (t.path, answer.chain, answer.warnings)
            self.answer = answer
            self.ready.emit(answer)

        self.started.emit(query)
        self._tasks.run(job, on_done=done, on_error=lambda e: self.failed.emit(describe_error(e)),
                        group="fact-trace")
