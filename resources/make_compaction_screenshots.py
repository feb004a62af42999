"""Render the compaction panel, the compare view and the audit panel after an offline run.

Usage: QT_QPA_PLATFORM=offscreen python resources/make_compaction_screenshots.py TRANSCRIPT
       [--out resources/screenshots] [--keep-recent N] [--instructions TEXT]

Works on a copy of TRANSCRIPT in a temp folder (nothing is written next to the original) and
keeps all settings under a temp --basedir. Each part is grabbed at a fixed size.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("transcript", type=Path)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "screenshots")
    p.add_argument("--keep-recent", type=int, default=2000)
    p.add_argument("--instructions", default="Keep every file path, command and the GitHub "
                                                "login steps; the user's SSH key setup matters most.")
    p.add_argument("--size", default="1100x860")
    p.add_argument("--theme", choices=("light", "dark"), default="light")
    p.add_argument("--recorded", type=Path, help="also re-run the last compaction of this "
                   "transcript and grab the audit of what it recorded (audit-recorded.png)")
    args = p.parse_args(argv)

    import qasync  # noqa: TID251 - a GUI screenshot script
    from PySide6.QtWidgets import QApplication  # noqa: TID251 - a GUI screenshot script

    from sessionlens.gui.app import build, parse_args
    from sessionlens.gui.compaction.mount import mount_compaction

    work = Path(tempfile.mkdtemp(prefix="sessionlens-shots-"))
    copy = work / args.transcript.name
    shutil.copy2(args.transcript, copy)
    app = QApplication.instance() or QApplication(["shots"])
    ctx = build(parse_args(["--basedir", str(work / "basedir"), "--theme", args.theme]),
                qapp=app)  # type: ignore[arg-type]
    assert ctx.window is not None
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    # the app mounts the tabs itself once wired; older shells need it done here
    parts = getattr(ctx, "compaction", None) or mount_compaction(
        ctx.window, ctx.controller, ctx.tasks, ctx.paths)
    w, _, h = args.size.partition("x")
    size = (int(w), int(h))

    async def scenario() -> None:
        c, comp, panel = ctx.controller, parts.controller, parts.panel
        c.open(copy)
        while c.is_busy() or c.tokens is None:
            await asyncio.sleep(0.05)
        panel.keep_recent.setValue(args.keep_recent)
        panel.instructions.setPlainText(args.instructions)
        panel.request_plan()
        while comp.plan is None:
            await asyncio.sleep(0.05)
        panel.run()
        while comp.current is None or comp.current.report is None:
            await asyncio.sleep(0.05)
        args.out.mkdir(parents=True, exist_ok=True)
        await grab("compaction-panel.png", panel)  # after the first run
        await grab("audit.png", parts.audit)
        # a second run keeping more of the recent tail, so the A/B view has two real runs
        panel.keep_recent.setValue(args.keep_recent * 3)
        panel.request_plan()
        while comp.plan is None or comp.plan.keep_recent_tokens != args.keep_recent * 3:
            await asyncio.sleep(0.05)
        panel.run()
        while comp.current is None or comp.current.number < 2 or comp.current.report is None:
            await asyncio.sleep(0.05)
        shots = (("compare.png", parts.compare, "ab"),
                 ("compare-source.png", parts.compare, "source"))
        for name, widget, mode in shots:
            if mode is not None:
                parts.compare.set_mode(mode)
            await grab(name, widget)
        if args.recorded is not None:
            await recorded_audit()

    async def recorded_audit() -> None:
        """Re-run the last recorded compaction of another transcript; show what it dropped."""
        c, comp = ctx.controller, parts.controller
        other = work / args.recorded.name
        shutil.copy2(args.recorded, other)
        c.open(other)
        while c.is_busy() or c.transcript is None or c.transcript.path != other:
            await asyncio.sleep(0.05)
        before = comp.current.number if comp.current is not None else 0
        parts.compare.rerun()
        while comp.current is None or comp.current.number == before or comp.current.report is None:
            await asyncio.sleep(0.05)
        parts.audit.source.setCurrentIndex(1)
        parts.audit.source.activated.emit(1)
        await grab("audit-recorded.png", parts.audit)

    async def grab(name: str, widget: Any) -> None:
        widget.resize(*size)
        widget.show()
        await asyncio.sleep(0.3)
        ok = widget.grab().save(str(args.out / name))
        print(f"{'written' if ok else 'FAILED'}: {args.out / name}")
        widget.hide()

    try:
        loop.run_until_complete(scenario())
    finally:
        ctx.tasks.shutdown()
        loop.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
