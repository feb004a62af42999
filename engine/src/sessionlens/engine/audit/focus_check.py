"""The audit's "focus" check: did the summary keep what the user asked it to focus on?

A summarizer's own claim that it applied the focus is no evidence (the offline one used to
say so while neither term was in its text). The check looks for itself: every focus term
(``contract.focus_terms``) that occurs in the summarized span must occur in the summary;
the check names those it does not. ``FocusCoverage.applied`` is the one answer to "was the
focus applied?" that ``compact --json``, the written record and exports give.
"""

from __future__ import annotations

from collections.abc import Sequence

from sessionlens.engine.contract.focus_terms import FocusCoverage, focus_coverage
from sessionlens.engine.contract.identifiers import entry_text
from sessionlens.engine.model import Entry

__all__ = ["focus_result", "span_focus"]


def span_focus(instructions: str, entries: Sequence[Entry], summary: str) -> FocusCoverage:
    """The focus coverage of ``summary`` as the replacement for ``entries``."""
    return focus_coverage(instructions, (entry_text(e) for e in entries), summary)


def focus_result(cov: FocusCoverage) -> tuple[bool, str, tuple[str, ...]]:
    """(passed, detail, reasons) of the focus check for ``cov`` (which has terms)."""
    absent = [t for t in cov.terms if t not in cov.in_span]
    tail = (f"; not in the summarized span (nothing to keep): {', '.join(absent)}"
            if absent else "")
    detail = (f"{len(cov.kept)} of {len(cov.in_span)} focus terms that occur in the span "
              f"kept" + (f": {', '.join(cov.kept)}" if cov.kept else ""))
    if cov.missing:
        return (False, f"{detail}; missing: {', '.join(cov.missing)}{tail}.",
                ("focus_terms_missing:" + ",".join(cov.missing[:5]),))
    if not cov.in_span:
        return (True, "No focus term occurs in the summarized span, so the focus could not "
                f"be applied{tail}.", ())
    return True, detail + tail + ".", ()
