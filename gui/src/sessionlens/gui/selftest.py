"""``sessionlens --self-test``: prove an installed (or frozen) app can do its whole job.

It runs the real pipeline on the bundled sample: load, count with the shipped tokenizer
data, plan, an offline compaction with its audit, and an export in every format to a
temporary folder (checked against the shipped JSON schema); it highlights code in both
themes; then it starts Qt offscreen-capable and renders the main window once.
Each step prints one line; the exit code is 0 only if every step worked. Packaging runs it
inside the built bundle, where a missing data file or plugin shows up as a failed step.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .paths import bundled_sample_path


class _Steps:
    def __init__(self) -> None:
        self.failed = 0

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            value = fn()
        except Exception:  # a self-test reports every failure and goes on
            self.failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
            return None
        print(f"ok   {name} ({(time.perf_counter() - t0) * 1000:.0f} ms)", flush=True)
        return value


def _pipeline(steps: _Steps, out_dir: Path) -> None:
    from sessionlens.engine import (
        DEFAULT_SETTINGS,
        EXPORT_FORMATS,
        CompactionOptions,
        ExportFormat,
        OfflineProvider,
        count_tokens,
        ensure_tiktoken_data,
        export_summary,
        load_transcript,
        make_bundle,
        plan_compaction,
        run_compaction,
    )

    transcript = steps.run("load bundled sample", lambda: load_transcript(bundled_sample_path()))
    if transcript is None:
        return

    def count() -> Any:
        ensure_tiktoken_data(out_dir / "tiktoken")
        report = count_tokens(transcript, "o200k_base")
        if report.exact_context <= 0:
            raise RuntimeError("exact token count is zero")
        return report

    tokens = steps.run("count tokens (o200k_base, shipped data)", count)
    plan = steps.run("plan compaction", lambda: plan_compaction(
        transcript, DEFAULT_SETTINGS, tokens=tokens, manual=True))
    if plan is None:
        return
    outcome = steps.run("offline compaction + audit", lambda: asyncio.run(run_compaction(
        transcript, plan, OfflineProvider(), CompactionOptions(
            instructions="Focus on the decisions and the exact file paths"))))
    if outcome is None:
        return
    if not outcome.summary.strip() or not outcome.audit.checks:
        steps.failed += 1
        print("FAIL offline compaction gave an empty summary or no audit checks", flush=True)
    bundle = make_bundle(transcript, outcome.summary, outcome.audit,
                         provider=outcome.result.provider, model=outcome.result.model,
                         instructions=outcome.result.instructions)
    for fmt in EXPORT_FORMATS:
        target = out_dir / f"selftest-export.{fmt}"

        def export(fmt: ExportFormat = fmt, target: Path = target) -> Path:
            return _nonempty(export_summary(bundle, fmt, target))

        steps.run(f"export {fmt}", export)
    steps.run("export json has the schema's required keys",
              lambda: _schema_keys(out_dir / "selftest-export.json"))
    steps.run("highlight code (pygments, light and dark styles)", _highlight)


def _nonempty(path: Path) -> Path:
    if not path.is_file() or path.stat().st_size == 0:
        raise RuntimeError(f"{path} was not written")
    return path


def _schema_keys(export_json: Path) -> None:
    """The shipped JSON schema loads (a data file a bundle can miss) and the export fits it."""
    import json

    from sessionlens.engine import export_schema

    missing = set(export_schema()["required"]) - set(json.loads(export_json.read_text("utf-8")))
    if missing:
        raise RuntimeError(f"export lacks required keys {sorted(missing)}")


def _highlight() -> None:
    """Pygments finds its styles by name at run time, which a frozen bundle can miss."""
    from .transcript.message_render import code_html

    for dark in (False, True):
        if "color" not in code_html('{"key": [1, true, null]}', "json", dark):
            raise RuntimeError(f"no highlighting (dark={dark})")


def _render_window(steps: _Steps, out_dir: Path, appdata: Path) -> None:
    def render() -> Path:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from .app import run_app

        target = out_dir / "selftest-window.png"
        code = run_app(["--screenshot", str(target), str(bundled_sample_path()),
                        "--basedir", str(appdata)])
        if code != 0:
            raise RuntimeError(f"screenshot exited {code}")
        return _nonempty(target)

    steps.run("render main window", render)


def run_self_test(*, with_window: bool = True, basedir: Path | str | None = None) -> int:
    """Run every step; returns 0 only if all of them worked. ``basedir`` is where the window
    step keeps its settings and cache (a temporary folder when not given)."""
    steps = _Steps()
    with tempfile.TemporaryDirectory(prefix="sessionlens-selftest-") as tmp:
        out_dir = Path(tmp)
        _pipeline(steps, out_dir)
        if with_window:
            _render_window(steps, out_dir,
                           Path(basedir).expanduser() if basedir else out_dir / "appdata")
    verdict = "passed" if steps.failed == 0 else f"FAILED ({steps.failed} step(s))"
    print(f"self-test {verdict}", flush=True)
    return 0 if steps.failed == 0 else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run_self_test())
