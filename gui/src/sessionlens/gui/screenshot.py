"""``--screenshot OUT.png [--size WxH] [--view NAME] [--query TEXT] [FILE]``: a picture of one view.

Opens the file (or the bundled sample), waits until loading, counting and planning have
settled, shows the view NAME (a workbench tab found by its title, or the search dock),
fills it, grabs the window and exits. For the compaction, audit and compare views of a file
with compactions, the latest recorded compaction is selected and re-run with the panel's
(offline) options first, so the view shows a summary and its audit. The search view indexes
the file's own folder in an index of its own (``<cache>/search-screenshot``), so a picture
never adds to or drops from the user's index, and shows the hits of ``--query`` (default: a
path the file mentions). Nothing is sent anywhere.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QWidget

    from sessionlens.engine import Transcript

    from .context import AppContext

__all__ = ["DIALOG_VIEWS", "RUN_VIEWS", "SCREENSHOT_TIMEOUT_MS", "VIEWS", "WAIT_VIEWS",
           "open_dialog", "show_search", "show_sessions", "start_view_run", "take_screenshot",
           "trace_example", "wait_for_view"]

#: Give up on a screenshot after this long (ms) rather than hang a script.
SCREENSHOT_TIMEOUT_MS = 180_000
#: ``--view`` names and the workbench tab each one shows (timeline: the inspect page; search:
#: the timeline with the search dock open beside it).
VIEWS: dict[str, str] = {"timeline": "Timeline", "compaction": "Compaction", "audit": "Audit",
                         "compare": "Compare", "lineage": "Lineage", "memory": "Memory",
                         "trace": "Trace", "pruning": "Pruning", "search": "Timeline",
                         "live": "Timeline",
                         "sessions": "Timeline", "settings": "Timeline", "export": "Timeline",
                         "accept": "Compaction"}
#: Views filled off the UI thread after the file settles: the screenshot waits for them.
WAIT_VIEWS = frozenset({"memory", "trace", "pruning", "lineage"})
#: Views that show a run: the screenshot re-runs the latest recorded compaction first.
RUN_VIEWS = frozenset({"compaction", "audit", "compare", "accept"})
#: Views that are a dialog over the window: the picture is the dialog's (settings: the
#: Settings dialog; export: Export summary's save dialog; accept: the Accept dialog of a run).
DIALOG_VIEWS = frozenset({"settings", "export", "accept"})
#: The search dock's share of the window's width in a screenshot.
SEARCH_DOCK_SHARE = 0.42


def take_screenshot(ctx: AppContext, out: Path, size: str, view: str = "timeline",
                    query: str | None = None) -> None:
    """Wait for the session to settle, show ``view`` (with something in it), grab, exit."""
    from PySide6.QtCore import QTimer

    c, win, app = ctx.controller, ctx.window, ctx.app
    assert win is not None
    w, _, h = size.partition("x")
    win.resize(int(w), int(h))
    done = {"shot": False, "sessions": False, "settled": False,
            "ready": view not in RUN_VIEWS and view not in WAIT_VIEWS
                     and view not in ("search", "live")}

    def finish(code: int) -> None:
        ctx.exit_code = code
        app.exit(code)

    def grab() -> None:
        if done["shot"] or not (done["sessions"] and done["settled"] and done["ready"]):
            return
        done["shot"] = True
        out.parent.mkdir(parents=True, exist_ok=True)
        shown = open_dialog(ctx, view) if view in DIALOG_VIEWS else None
        if shown is not None:
            app.processEvents()
        ok = (shown or win).grab().save(str(out))
        if shown is not None:
            shown.close()
        print(f"screenshot {'written' if ok else 'FAILED'}: {out}")
        finish(0 if ok else 1)

    def later() -> None:
        QTimer.singleShot(600, grab)

    def settled() -> None:
        if c.is_busy() or c.transcript is None or done["settled"]:
            return
        done["settled"] = True
        if not win.show_tab(VIEWS[view]):
            print(f"no {view!r} view in this build; available views: "
                  + ", ".join(n for n, t in VIEWS.items() if t in win.tab_titles()), file=sys.stderr)
            finish(2)
            return
        if view == "search" and not show_search(ctx, query, run_ready):
            done["ready"] = True
        if view == "live":
            from .live.showcase import show_live

            if not show_live(ctx, run_ready):
                done["ready"] = True
        if view == "sessions":
            show_sessions(ctx)
        if view in RUN_VIEWS or view in WAIT_VIEWS:
            waiting = start_view_run(ctx, view) if view in RUN_VIEWS else wait_for_view(ctx, view)
            if waiting is None:
                done["ready"] = True
            else:
                waiting.connect(run_ready)
        target = c.plan.first_kept_entry_id if c.plan is not None else None
        if target is None and c.transcript.active_path:
            target = c.transcript.active_path[-1]
        if target and view in ("timeline", "search"):
            c.select(target)
        later()

    def sessions_listed(*_args: object) -> None:
        done["sessions"] = True
        later()

    def run_ready(*_args: object) -> None:
        done["ready"] = True
        later()

    c.sessions_ready.connect(sessions_listed)
    c.sessions_failed.connect(sessions_listed)
    if ctx.compaction is not None and view in RUN_VIEWS:
        comp = ctx.compaction.controller
        for signal in (comp.run_failed, comp.run_cancelled, comp.write_failed):
            signal.connect(run_ready)

    def give_up() -> None:
        print("screenshot timed out", file=sys.stderr)
        finish(2)

    c.settled.connect(settled)

    def load_failed(message: str) -> None:
        print(message, file=sys.stderr)
        finish(1)

    c.failed.connect(load_failed)
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, give_up)


def trace_example(t: Transcript) -> str | None:
    """Something worth tracing for a screenshot: the first path-like word a user or tool
    wrote before the first compaction (else the file's first such word)."""
    import re

    first = next((i for i, e in enumerate(t.entries) if e.type == "compaction"), len(t.entries))
    for entries in (t.entries[:first], t.entries):
        for e in entries:
            text = e.message.text if e.message is not None else ""
            m = re.search(r"(?<![\w/])/[A-Za-z][\w.-]*/[\w./-]{3,}", text)
            if m:
                return m.group(0).rstrip(".")
    return None


def wait_for_view(ctx: AppContext, view: str) -> SignalInstance | None:
    """The signal that says ``view`` is filled, or None when it already is (or cannot be)."""
    if view == "memory" and ctx.memory is not None:
        return None if ctx.memory.panel.health is not None else ctx.memory.controller.health_ready
    if view == "trace" and ctx.trace is not None and ctx.controller.transcript is not None:
        text = trace_example(ctx.controller.transcript)
        if text is None:
            return None
        ctx.trace.panel.trace(text)
        return ctx.trace.controller.ready
    if view == "lineage" and ctx.lineage is not None:  # the chain is read off the UI thread
        lin = ctx.lineage.controller
        return None if lin.result is not None else lin.lineage_ready
    if view == "pruning" and ctx.pruning is not None:
        if ctx.pruning.delay is not None:
            return None
        if ctx.pruning.stale:  # showing the tab usually started it already: not twice
            ctx.pruning.refresh()
        return ctx.pruning.panel.shown
    return None


def start_view_run(ctx: AppContext, view: str) -> SignalInstance | None:
    """Give a run view something to show: the compaction view a fresh run of the planned
    cut, audit and compare a re-run of the latest recorded compaction (selected first).
    Local providers only (a screenshot sends nothing anywhere). Returns the signal that
    says the run is shown, or None when there is nothing to run."""
    parts, t = ctx.compaction, ctx.controller.transcript
    if parts is None or t is None:
        return None
    opts = parts.panel.options()
    if opts.is_remote:
        return None
    recorded = [e.id for e in t.compactions if e.id in ctx.controller.path_pos]
    if recorded:
        ctx.controller.select(recorded[-1])
        idx = parts.compare.compactions.findData(recorded[-1])
        if idx >= 0:
            parts.compare.compactions.setCurrentIndex(idx)
    if parts.controller.plan is not None and (view in ("compaction", "accept") or not recorded):
        parts.panel.run()
        return parts.controller.writes_ready
    if recorded:
        parts.controller.rerun_compaction(recorded[-1], opts)
        return parts.controller.audit_ready
    return None



def show_search(ctx: AppContext, query: str | None, on_ready: Callable[[], None]) -> bool:
    """Open the search dock on an index of the open file's folder alone and search ``query``
    once it is built; ``on_ready`` runs when the hits (or an error) are shown. False when
    this build has no search or no file is open."""
    from PySide6.QtCore import Qt

    parts, t, win = ctx.search, ctx.controller.transcript, ctx.window
    if parts is None or t is None or win is None:
        return False
    text = query or trace_example(t) or "error"
    folder = Path(t.path).resolve().parent
    parts.controller.scope(ctx.paths.cache_dir / "search-screenshot", [folder])
    asked = {"query": False}

    def indexed(_stats: object) -> None:
        if not asked["query"]:
            asked["query"] = True
            parts.panel.query.setText(text)
            parts.panel.run_query()

    def answered(*_args: object) -> None:
        if asked["query"]:
            on_ready()

    parts.controller.indexed.connect(indexed)
    parts.controller.results_ready.connect(answered)
    parts.controller.failed.connect(lambda _m: on_ready())
    parts.action.trigger()  # shows the dock, which starts the index update
    if not win.tabifiedDockWidgets(parts.dock):  # beside the central widget: give it room
        win.resizeDocks([parts.dock], [int(win.width() * SEARCH_DOCK_SHARE)],
                        Qt.Orientation.Horizontal)
    return True


def show_sessions(ctx: AppContext) -> None:
    """The Sessions dock in front (a search dock sharing its place steps back)."""
    win = ctx.window
    if win is None:
        return
    win.browser_dock.show()
    win.browser_dock.raise_()


def open_dialog(ctx: AppContext, view: str) -> QWidget | None:
    """Open the dialog ``view`` shows, without running it modally (the caller grabs and
    closes it): the Settings dialog, Export summary's save dialog in the transcript's folder,
    or the Accept dialog of the run just made. None when there is nothing to show."""
    from PySide6.QtWidgets import QFileDialog

    from .export_flow import default_export_path

    win, c = ctx.window, ctx.controller
    if win is None:
        return None
    dialog: QWidget | None = None
    if view == "settings":
        from .settings.dialog import SettingsDialog
        from .settings.profiles import load_profiles

        dialog = SettingsDialog(c.overrides, c.settings, c.encoding, ctx.prefs.theme(),
                                load_profiles(ctx.paths.profiles_file), win, resolved=c.resolved)
    elif view == "export":
        proposed = default_export_path(c.transcript, "summary", "md")
        box = QFileDialog(win, win.tr("Export audited summary"), str(proposed.parent))
        box.setOption(QFileDialog.Option.DontUseNativeDialog)
        box.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        box.setNameFilters(["Markdown (*.md)", "JSON (*.json)", "HTML (*.html)"])
        box.selectFile(proposed.name)
        dialog = box
    elif view == "accept" and ctx.compaction is not None:
        record, t = ctx.compaction.controller.current, c.transcript
        if record is not None and t is not None:
            from .compaction.accept_dialog import AcceptDialog

            dialog = AcceptDialog(record, t, win)
    if dialog is not None:
        dialog.show()
    return dialog
