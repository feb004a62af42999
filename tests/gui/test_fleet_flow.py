"""File ▸ Audit all sessions…: a progress bar of sessions, Cancel, the report opened when
done (issue 40)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fixtures.fleet_sessions import write_fleet

pytestmark = pytest.mark.samples

RUN_MS = 180_000


class _Asked:
    """Stands in for the save dialog: records what it was offered, answers ``answer``."""

    def __init__(self, answer: Path | None) -> None:
        self.answer = answer
        self.offered: list[tuple[str, Path, tuple[str, ...]]] = []

    def __call__(self, title: str, proposed: Path, formats: tuple[str, ...],
                 _p: Any) -> Path | None:
        self.offered.append((title, proposed, formats))
        return self.answer


def _menu_texts(ctx: Any) -> list[str]:
    return [a.text() for a in ctx.window.file_menu.actions()]


def test_audit_all_runs_on_a_local_cluster_shows_progress_and_opens_the_report(
        qtbot: Any, make_main_window: Any, tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 6, seed=21)
    ctx = make_main_window()
    assert "&Audit all sessions…" in _menu_texts(ctx)
    fleet = ctx.fleet
    opened: list[Path] = []
    out = tmp_path / "reports" / "fleet.html"
    fleet.roots = lambda: [tmp_path / "fleet"]
    fleet.workers = 1  # a Dask LocalCluster of one process, started from the task thread
    fleet.ask_path = asked = _Asked(out)
    fleet.open_report = opened.append
    progress: list[tuple[int, int]] = []
    fleet.act.trigger()
    assert asked.offered[0][2] == ("html",)
    assert asked.offered[0][1].name == "sessionlens-fleet-report.html"
    dialog = fleet.dialog
    assert dialog is not None and dialog.isVisible() and not fleet.act.isEnabled()
    dialog.bar.valueChanged.connect(lambda v: progress.append((v, dialog.bar.maximum())))
    qtbot.waitUntil(lambda: bool(opened), timeout=RUN_MS)
    assert opened == [out] and out.is_file()
    assert "Fleet memory health" in out.read_text(encoding="utf-8")
    assert progress and progress[-1] == (6, 6)
    assert fleet.dialog is None and fleet.act.isEnabled()
    assert ctx.window.status_label.text().startswith("Fleet report: 6 sessions")


def test_cancel_stops_the_audit_and_opens_nothing(qtbot: Any, make_main_window: Any,
                                                  tmp_path: Path, samples_dir: Path) -> None:
    write_fleet(tmp_path / "fleet", samples_dir, 40, seed=22)
    ctx = make_main_window()
    fleet = ctx.fleet
    opened: list[Path] = []
    out = tmp_path / "fleet.html"
    fleet.roots = lambda: [tmp_path / "fleet"]
    fleet.workers = 0
    fleet.ask_path = _Asked(out)
    fleet.open_report = opened.append
    fleet.act.trigger()
    dialog = fleet.dialog
    qtbot.waitUntil(lambda: dialog.bar.value() >= 1, timeout=RUN_MS)
    dialog.buttons.rejected.emit()  # the dialog's Cancel
    assert fleet.dialog is None and fleet.act.isEnabled()
    assert ctx.window.status_label.text() == "Fleet audit cancelled"
    qtbot.waitUntil(lambda: not ctx.tasks.busy(), timeout=RUN_MS)
    assert opened == [] and not out.exists()


def test_nothing_starts_when_the_save_dialog_is_cancelled(qtbot: Any, make_main_window: Any,
                                                          tmp_path: Path) -> None:
    ctx = make_main_window(show=False)
    # the window's own start-up jobs (the journal watch finding the journal's end) first
    qtbot.waitUntil(lambda: not ctx.tasks.busy(), timeout=RUN_MS)
    ctx.fleet.ask_path = _Asked(None)
    ctx.fleet.act.trigger()
    assert ctx.fleet.dialog is None and not ctx.fleet.running() and not ctx.tasks.busy()


def test_the_reports_command_opens_the_app_on_the_compaction(
        qtbot: Any, make_main_window: Any, tmp_path: Path, samples_dir: Path) -> None:
    """``sessionlens FILE --compaction ID`` (each report row's command) selects it."""
    from sessionlens.gui.__main__ import split_subcommand
    from sessionlens.gui.app import open_initial, parse_args

    path = write_fleet(tmp_path / "fleet", samples_dir, 1, seed=23)[0]
    compaction = next(line.split('"id": "')[1].split('"')[0]
                      for line in path.read_text(encoding="utf-8").splitlines()
                      if '"type": "compaction"' in line)
    words = [str(path), "--compaction", compaction]
    assert split_subcommand(["--compaction", "audit", str(path)], {"audit"})[0] is None
    args = parse_args(words)
    ctx = make_main_window()
    with qtbot.waitSignal(ctx.controller.settled, timeout=RUN_MS):
        open_initial(args, ctx)
    assert ctx.controller.path == path
    qtbot.waitUntil(lambda: ctx.controller.selected_id == compaction, timeout=RUN_MS)


def test_a_frozen_build_audits_serially(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frozen executable would start the app again in each spawned Dask worker."""
    import sys

    from sessionlens.gui.fleet_flow import default_workers

    assert default_workers() is None  # Dask is installed with the test extra
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert default_workers() == 0
