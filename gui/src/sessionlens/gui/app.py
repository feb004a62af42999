"""Composition root: parse the command line, build paths, prefs, tasks, controller, window.

Also runs ``--screenshot OUT.png [--size WxH] [--view NAME] [FILE]``: open the file (or the
bundled sample), wait until loading, counting and planning have settled, show the view NAME
(a workbench tab found by its title), grab the window and exit. For the compaction, audit and
compare views of a file with compactions, the latest recorded compaction is selected and
re-run with the panel's (offline) options first, so the view shows a summary and its audit. Nothing here holds
domain logic; this module only decides what is created, in which order, and with what.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import qasync
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QApplication, QWidget

    from sessionlens.engine import Transcript

    from .compaction.mount import CompactionParts
    from .export_flow import ExportActions
    from .lineage.mount import LineageParts
    from .main_window import MainWindow
    from .memory.mount import MemoryParts
    from .paths import AppPaths
    from .prefs import Prefs, Theme
    from .pruning.mount import PruningParts
    from .search.mount import SearchParts
    from .session_controller import SessionController
    from .tasks import TaskRunner
    from .trace.mount import TraceParts

#: Give up on a screenshot after this long (ms) rather than hang a script.
SCREENSHOT_TIMEOUT_MS = 180_000
#: ``--view`` names and the workbench tab each one shows (timeline: the inspect page).
VIEWS: dict[str, str] = {"timeline": "Timeline", "compaction": "Compaction", "audit": "Audit",
                         "compare": "Compare", "lineage": "Lineage", "memory": "Memory",
                         "trace": "Trace", "pruning": "Pruning"}
#: Views filled off the UI thread after the file settles: the screenshot waits for them.
WAIT_VIEWS = frozenset({"memory", "trace", "pruning"})
#: Views that show a run: the screenshot re-runs the latest recorded compaction first.
RUN_VIEWS = frozenset({"compaction", "audit", "compare"})
APP_ID = "dev.sessionlens.SessionLens"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="sessionlens", description="SessionLens desktop app.")
    p.add_argument("file", nargs="?", type=Path, help="transcript to open")
    p.add_argument("--basedir", type=Path, help="keep settings, cache and data under DIR")
    p.add_argument("--screenshot", type=Path, metavar="OUT.png",
                   help="render the main window on FILE (or the sample), write a PNG and exit")
    p.add_argument("--size", default="1500x940", help="window size for --screenshot (WxH)")
    p.add_argument("--view", choices=tuple(VIEWS), default="timeline", metavar="NAME",
                   help="view for --screenshot: " + ", ".join(VIEWS) + " (default: timeline)")
    p.add_argument("--theme", choices=("system", "light", "dark"), help="override the theme")
    return p.parse_args(list(argv))


@dataclass
class AppContext:
    """Everything the composition root built (tests and benchmarks reach in through this)."""

    app: QApplication
    paths: AppPaths
    prefs: Prefs
    tasks: TaskRunner
    controller: SessionController
    window: MainWindow | None = None
    loop: qasync.QEventLoop | None = None
    exit_code: int = 0
    #: The lineage controller and panel (``lineage_mount.LineageParts``).
    lineage: LineageParts | None = None
    #: The compaction controller and its tabs (``compaction_mount.CompactionParts``).
    compaction: CompactionParts | None = None
    #: The search controller, panel and dock (``search.mount.SearchParts``).
    search: SearchParts | None = None
    #: The memory-health controller and the Memory tab (``memory.mount.MemoryParts``).
    memory: MemoryParts | None = None
    #: The fact-trace controller and the Trace tab (``trace.mount.TraceParts``).
    trace: TraceParts | None = None
    #: The pruning tab (``pruning.mount.PruningParts``).
    pruning: PruningParts | None = None
    #: File ▸ Export summary… / Export transcript… (``export_flow.ExportActions``).
    exports: ExportActions | None = None


def build(args: argparse.Namespace, *, qapp: QApplication | None = None) -> AppContext:
    """Create the app objects (without starting the event loop or opening a file)."""
    from PySide6.QtWidgets import QApplication

    from sessionlens.engine import ensure_tiktoken_data, get_encoding, use_count_cache

    from .compaction.mount import mount_compaction
    from .export_flow import ExportActions
    from .icons import ICON_KEYS, icon
    from .lineage.mount import mount_lineage
    from .main_window import MainWindow
    from .memory.mount import mount_memory
    from .paths import AppPaths, bundled_sample_path
    from .prefs import Prefs
    from .pruning.mount import mount_pruning
    from .search.mount import mount_search
    from .session_controller import SessionController
    from .tasks import TaskRunner
    from .trace.mount import mount_trace

    paths = AppPaths.resolve(args.basedir).ensure()
    # an explicit $TIKTOKEN_CACHE_DIR wins; otherwise the tokenizer data lives in our cache dir
    ensure_tiktoken_data(None if os.environ.get("TIKTOKEN_CACHE_DIR") else paths.tiktoken_cache)
    # exact counts are remembered per text in the cache folder: a file opened again, or
    # grown, tokenizes only what is new (the same cache as the CLI's)
    use_count_cache(paths.cache_dir)
    prefs = Prefs(paths.settings_file)
    # Building tiktoken's BPE tables holds the GIL for ~0.5 s; doing it now, before the
    # window exists, keeps that pause out of the running event loop.
    get_encoding(prefs.encoding())
    existing = qapp or QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["sessionlens"])
    app.setApplicationName("SessionLens")
    app.setOrganizationName("sessionlens")
    app.setDesktopFileName(APP_ID)  # Wayland app_id: ties windows to the .desktop file/icon
    app.setWindowIcon(icon("app"))  # every window and dialog, from the master app icon
    for key in ICON_KEYS:  # SVG rasterising on first paint of a big timeline costs ~30 ms
        icon(key)
    if args.theme:
        prefs.set_theme(args.theme)
    tasks = TaskRunner()
    controller = SessionController(tasks, prefs)
    ctx = AppContext(app, paths, prefs, tasks, controller)

    def open_settings(parent: QWidget) -> None:
        _settings_flow(ctx, parent)

    window = MainWindow(controller, prefs, sample_path=bundled_sample_path(),
                        open_settings=open_settings)
    ctx.window = window
    # the window owns the controller and the task runner: closing it ends their work too
    controller.setParent(window)
    tasks.setParent(window)
    window.act_dark.toggled.connect(lambda on: set_theme(ctx, "dark" if on else "light"))
    set_theme(ctx, prefs.theme())
    ctx.lineage = mount_lineage(window, controller, tasks)
    ctx.compaction = mount_compaction(window, controller, tasks, paths)
    ctx.search = mount_search(window, controller, tasks, paths)
    ctx.memory = mount_memory(window, controller, tasks, ctx.compaction,
                              undo=ctx.lineage.controller.undo)
    ctx.trace = mount_trace(window, controller, tasks, ctx.compaction)
    ctx.pruning = mount_pruning(window, controller, tasks)
    ctx.exports = ExportActions(window, controller, tasks, ctx.compaction.controller)
    geometry, state = prefs.geometry(), prefs.window_state()
    if geometry is not None and args.screenshot is None:
        window.restoreGeometry(geometry)
    if state is not None and args.screenshot is None:
        window.restoreState(state)
    app.aboutToQuit.connect(tasks.shutdown)
    return ctx


def _settings_flow(ctx: AppContext, parent: QWidget) -> None:
    """Show the settings dialog and apply what the user chose."""
    from PySide6.QtWidgets import QDialog

    from .settings.dialog import SettingsDialog
    from .settings.profiles import load_profiles, save_profiles

    c, prefs, paths = ctx.controller, ctx.prefs, ctx.paths
    dlg = SettingsDialog(c.overrides, c.settings, c.encoding, prefs.theme(),
                         load_profiles(paths.profiles_file), parent)
    if dlg.exec() != QDialog.DialogCode.Accepted:
        return
    prefs.set_encoding(dlg.result_encoding())
    save_profiles(paths.profiles_file, dlg.result_profiles())
    set_theme(ctx, dlg.result_theme())
    c.apply_overrides(dlg.result_overrides(), dlg.result_encoding())


def set_theme(ctx: AppContext, theme: Theme) -> bool:
    """Apply and remember ``theme`` (Settings and View ▸ Dark mode both come here, so the
    menu's check mark and the pref never disagree); returns whether the result is dark."""
    from .theme import apply_theme

    ctx.prefs.set_theme(theme)
    dark = apply_theme(ctx.app, theme)
    win = ctx.window
    if win is not None:
        win.act_dark.blockSignals(True)
        win.act_dark.setChecked(dark)
        win.act_dark.blockSignals(False)
        win.tokens.apply_theme(dark)
        win.message.render_entry()
    return dark


def initial_file(args: argparse.Namespace, ctx: AppContext) -> Path:
    """FILE if given; else the last session (if it still exists); else the bundled sample."""
    from .paths import bundled_sample_path

    if args.file is not None:
        return Path(args.file)
    last = ctx.prefs.last_session()
    if args.screenshot is None and last is not None and last.is_file():
        return Path(last)
    return bundled_sample_path()


def _install_excepthook(ctx: AppContext) -> None:
    """Unexpected errors go to stderr and one dialog, never a silent crash or a flood."""
    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        text = "".join(traceback.format_exception(kind, exc, tb))
        sys.stderr.write(text)
        from PySide6.QtWidgets import QMessageBox

        win = ctx.window
        if win is not None and win.isVisible():
            QMessageBox.critical(win, "SessionLens", f"{kind.__name__}: {exc}")

    sys.excepthook = hook


def take_screenshot(ctx: AppContext, out: Path, size: str, view: str = "timeline") -> None:
    """Wait for the session to settle, show ``view`` (with something in it), grab, exit."""
    from PySide6.QtCore import QTimer

    c, win, app = ctx.controller, ctx.window, ctx.app
    assert win is not None
    w, _, h = size.partition("x")
    win.resize(int(w), int(h))
    done = {"shot": False, "sessions": False, "settled": False,
            "ready": view not in RUN_VIEWS and view not in WAIT_VIEWS}

    def finish(code: int) -> None:
        ctx.exit_code = code
        app.exit(code)

    def grab() -> None:
        if done["shot"] or not (done["sessions"] and done["settled"] and done["ready"]):
            return
        done["shot"] = True
        out.parent.mkdir(parents=True, exist_ok=True)
        ok = win.grab().save(str(out))
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
        if view in RUN_VIEWS or view in WAIT_VIEWS:
            waiting = start_view_run(ctx, view) if view in RUN_VIEWS else wait_for_view(ctx, view)
            if waiting is None:
                done["ready"] = True
            else:
                waiting.connect(run_ready)
        target = c.plan.first_kept_entry_id if c.plan is not None else None
        if target is None and c.transcript.active_path:
            target = c.transcript.active_path[-1]
        if target and view == "timeline":
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
    if parts.controller.plan is not None and (view == "compaction" or not recorded):
        parts.panel.run()
        return parts.controller.writes_ready
    if recorded:
        parts.controller.rerun_compaction(recorded[-1], opts)
        return parts.controller.audit_ready
    return None


def run_app(argv: Sequence[str]) -> int:
    """Start the desktop app (or take a screenshot); returns the exit code."""
    args = parse_args(argv)
    if args.screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from .preflight import preflight_problem

    problem = preflight_problem()
    if problem is not None:  # Qt would abort naming the wrong library
        print(problem, file=sys.stderr)
        return 3
    import qasync

    ctx = build(args)
    assert ctx.window is not None
    loop = qasync.QEventLoop(ctx.app)
    asyncio.set_event_loop(loop)
    # qasync installs no async-generator hooks (asyncio.run does): without them a streamed
    # answer's generator is finalized outside the loop and httpx reports errors on stderr
    sys.set_asyncgen_hooks(firstiter=loop._asyncgen_firstiter_hook,
                           finalizer=loop._asyncgen_finalizer_hook)
    ctx.loop = loop
    _install_excepthook(ctx)
    if args.screenshot is not None:
        take_screenshot(ctx, args.screenshot, args.size, args.view)
    ctx.window.show()
    ctx.controller.open(initial_file(args, ctx))
    ctx.controller.discover()
    with loop:
        loop.run_forever()
    return ctx.exit_code
