"""Composition root: parse the command line, build paths, prefs, tasks, controller, window.

``--screenshot`` hands the built app to ``screenshot.take_screenshot``. Nothing here holds
domain logic; this module only decides what is created, in which order, and with what.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from .context import AppContext
from .screenshot import VIEWS, take_screenshot

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication, QWidget

    from .prefs import Theme

APP_ID = "dev.sessionlens.SessionLens"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="sessionlens", description="SessionLens desktop app.")
    p.add_argument("file", nargs="?", type=Path, help="transcript to open")
    p.add_argument("--compaction", metavar="ID",
                   help="with FILE: open it on this compaction (the fleet report's links)")
    p.add_argument("--basedir", type=Path, help="keep settings, cache and data under DIR")
    p.add_argument("--screenshot", type=Path, metavar="OUT.png",
                   help="render the main window on FILE (or the sample), write a PNG and exit")
    p.add_argument("--size", default="1500x940", help="window size for --screenshot (WxH)")
    p.add_argument("--view", choices=tuple(VIEWS), default="timeline", metavar="NAME",
                   help="view for --screenshot: " + ", ".join(VIEWS) + " (default: timeline)")
    p.add_argument("--query", metavar="TEXT",
                   help="what --view search searches for (default: a path the file mentions)")
    p.add_argument("--theme", choices=("system", "light", "dark"), help="override the theme")
    return p.parse_args(list(argv))


def build(args: argparse.Namespace, *, qapp: QApplication | None = None) -> AppContext:
    """Create the app objects (without starting the event loop or opening a file)."""
    from PySide6.QtWidgets import QApplication

    from sessionlens.engine import ensure_tiktoken_data, get_encoding, use_count_cache

    from .compaction.mount import mount_compaction
    from .export_flow import ExportActions
    from .fleet_flow import FleetActions
    from .icons import ICON_KEYS, icon
    from .lineage.mount import mount_lineage
    from .live.journal_notice import mount_journal_notices
    from .live.mount import mount_live
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
                              undo=ctx.lineage.controller.undo, state_dir=paths.state_dir)
    ctx.trace = mount_trace(window, controller, tasks, ctx.compaction)
    ctx.pruning = mount_pruning(window, controller, tasks)
    ctx.live = mount_live(window, controller, tasks, paths, ctx.compaction)
    if args.screenshot is None:  # a picture needs no journal followed
        ctx.journal_notices = mount_journal_notices(window, controller, tasks, paths.state_dir,
                                                    ctx.live, ctx.memory, ctx.compaction)
    ctx.exports = ExportActions(window, controller, tasks, ctx.compaction.controller)
    ctx.fleet = FleetActions(window, tasks, paths)
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
    def integrations() -> None:
        from .settings.integrations import IntegrationsDialog

        IntegrationsDialog(paths.basedir, dlg).exec()

    dlg = SettingsDialog(c.overrides, c.settings, c.encoding, prefs.theme(),
                         load_profiles(paths.profiles_file), parent, resolved=c.resolved,
                         on_integrations=integrations)
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


def open_initial(args: argparse.Namespace, ctx: AppContext) -> None:
    """Open the first file; ``FILE --compaction ID`` opens it on that compaction (selected,
    so the Memory tab and the timeline show it: the fleet report's commands)."""
    if args.compaction and args.file is not None:
        ctx.controller.open_at(Path(args.file), args.compaction)
    else:
        ctx.controller.open(initial_file(args, ctx))


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
        take_screenshot(ctx, args.screenshot, args.size, args.view, args.query)
    ctx.window.show()
    open_initial(args, ctx)
    ctx.controller.discover()
    with loop:
        loop.run_forever()
    return ctx.exit_code
