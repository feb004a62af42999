"""Render the compaction panel with a pinned entry and an edited summary under live audit.

Usage: QT_QPA_PLATFORM=offscreen python resources/make_pins_screenshot.py [TRANSCRIPT]
       [--out docs/screenshots/pins-edit.png] [--keep-recent N] [--size 1600x1000]

TRANSCRIPT defaults to the bundled sample session. It works on a copy in a temp folder with
a temp --basedir (the pin sidecar goes there too), pins the first user message before the
cut, runs the offline summarizer, edits the summary as a user would and grabs the panel
once the edit's audit is back.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("transcript", type=Path, nargs="?")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots" / "pins-edit.png")
    p.add_argument("--keep-recent", type=int, default=1500)
    p.add_argument("--size", default="1600x1000")
    p.add_argument("--theme", choices=("light", "dark"), default="light")
    args = p.parse_args(argv)

    import qasync  # noqa: TID251 - a GUI screenshot script
    from PySide6.QtWidgets import QApplication  # noqa: TID251 - a GUI screenshot script

    from sessionlens.gui.app import build, parse_args
    from sessionlens.gui.paths import bundled_sample_path

    source = args.transcript or bundled_sample_path()
    work = Path(tempfile.mkdtemp(prefix="sessionlens-pins-"))
    copy = work / source.name
    shutil.copy2(source, copy)
    app = QApplication.instance() or QApplication(["shots"])
    ctx = build(parse_args(["--basedir", str(work / "basedir"), "--theme", args.theme]),
                qapp=app)  # type: ignore[arg-type]
    assert ctx.window is not None and ctx.compaction is not None
    parts = ctx.compaction
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    w, _, h = args.size.partition("x")

    async def until(cond: object, what: str, seconds: float = 60) -> None:
        for _ in range(int(seconds / 0.05)):
            if cond():  # type: ignore[operator]
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(what)

    async def scenario() -> None:
        c, comp, panel = ctx.controller, parts.controller, parts.panel
        c.open(copy)
        await until(lambda: not c.is_busy() and c.transcript is not None, "load")
        panel.keep_recent.setValue(args.keep_recent)
        await until(lambda: comp.plan is not None and not panel.form.replan_pending
                    and comp.plan.keep_recent_tokens == args.keep_recent, "plan")
        t, plan = c.transcript, comp.plan
        assert t is not None and plan is not None
        users = [i for i in plan.summarized_entry_ids if t.entry(i).role == "user"]
        parts.pins.toggle(users[0])
        await until(lambda: parts.pins.places and parts.pins.places[0].entry_id == users[0],
                    "pin")
        panel.run()
        await until(lambda: comp.current is not None and comp.current.report is not None,
                    "run")
        generated = comp.current.result.summary
        note = "- Reviewer (edited by hand): confirm the fix on a clean checkout first."
        # the note goes right under the pinned block, so the picture shows both
        join = "\n\n---\n\n**Turn Context"
        edited = (generated.replace(join, f"\n\n{note}{join}", 1) if join in generated
                  else generated.replace("## Next Steps", f"## Next Steps\n{note}", 1))
        panel.summary.setPlainText(edited)
        await until(lambda: not panel.editing.busy and comp.current.outcome.provenance.origin
                    == "edited", "edit audit")
        # show the pinned block in the editor, under Critical Context
        cursor = panel.summary.document().find("Pinned by the user")
        if not cursor.isNull():
            panel.summary.setTextCursor(cursor)
            panel.summary.centerCursor()
        # grabbed on its own at the asked size (inside the window it gets the tab's size)
        panel.setParent(None)
        panel.resize(int(w), int(h))
        panel.show()
        await asyncio.sleep(0.5)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        ok = panel.grab().save(str(args.out))
        print(f"{'written' if ok else 'FAILED'}: {args.out}")

    try:
        loop.run_until_complete(scenario())
    finally:
        ctx.tasks.shutdown()
        loop.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
