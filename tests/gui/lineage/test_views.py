"""Lineage GUI: models, graph, branch tree, drift and compare views, and the mounted panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest

from fixtures.chains import make_chain
from fixtures.written import path_to_root, read_rows
from sessionlens.engine import (
    analyze_drift,
    branch_outline,
    build_chain,
    build_lineage,
    compare_points,
    load_transcript,
)
from sessionlens.gui.lineage.compare import LineageCompareView
from sessionlens.gui.lineage.controller import CompareResult
from sessionlens.gui.lineage.drift_view import DriftView
from sessionlens.gui.lineage.graph import LineageGraphView
from sessionlens.gui.lineage.model import BranchOutlineModel, LineageNodesModel
from sessionlens.gui.roles import ItemRole
from sessionlens.gui.transcript.timeline_rows import build_rows


def _path_ids(path: Path) -> list[str]:
    return path_to_root(read_rows(path))


def test_nodes_model_lists_every_point(qtbot: Any, tmp_path: Path) -> None:
    chain = make_chain(tmp_path, 3)
    lineage = build_lineage(chain.transcripts[-1])
    model = LineageNodesModel()
    model.set_lineage(lineage)
    assert model.rowCount() == len(lineage.nodes)
    assert [model.index(r, 0).data(ItemRole) for r in range(model.rowCount())] == list(
        lineage.nodes)
    model.set_lineage(lineage, openable_only=True)
    assert all(model.node(r).path is not None for r in range(model.rowCount()))
    files = sum(1 for p in tmp_path.iterdir() if p.suffix == ".jsonl")
    assert model.rowCount() >= files  # every file is a point (compactions add more)


def test_branch_model_folds_the_side_branch(qtbot: Any, tmp_path: Path) -> None:
    chain = make_chain(tmp_path, 2, side_every=2)
    t = load_transcript(chain.transcripts[-1])
    model = BranchOutlineModel()
    model.set_outline(branch_outline(t), {r.entry_id: r for r in build_rows(t, tree=True)})
    top = [model.index(r, 0).data(ItemRole).entry_id for r in range(model.rowCount())]
    assert top == _path_ids(chain.transcripts[-1])
    side = chain.side_branches[chain.transcripts[-1]]
    idx = model.index_of_entry(side)
    fold = idx.parent()
    assert fold.isValid() and fold.data(ItemRole).kind == "branch"
    point = fold.parent()
    assert point.data(ItemRole).is_branch_point and point.data(Qt.ItemDataRole.DisplayRole
                                                               ).endswith("[1 branch here]")
    assert point.data(Qt.ItemDataRole.FontRole).bold()
    assert idx.data(Qt.ItemDataRole.FontRole) is None  # off the active path: not bold
    on_path = set(top)
    off_path = [o["id"] for o in read_rows(chain.transcripts[-1])[1:] if o["id"] not in on_path]
    assert off_path[0] == side  # the side question, then its answer: the fold lists both
    assert [model.index(r, 0, fold).data(ItemRole).entry_id
            for r in range(model.rowCount(fold))] == off_path


def test_graph_selects_and_opens_a_point(qtbot: Any, tmp_path: Path) -> None:
    chain = make_chain(tmp_path, 3)
    lineage = build_lineage(chain.transcripts[0])
    view = LineageGraphView()
    qtbot.addWidget(view)
    view.resize(1200, 500)
    view.set_lineage(lineage, chain.transcripts[0])
    view.show()
    shown = [n for n in lineage.nodes if not n.inherited]
    assert set(view.items_by_key) == {n.key for n in shown}
    view.set_show_inherited(True)
    assert set(view.items_by_key) == {n.key for n in lineage.nodes}
    comp = next(n for n in lineage.of_kind("compaction") if n.path == chain.transcripts[2]
                and not n.inherited)
    with qtbot.waitSignal(view.node_selected) as sel:
        view.select_node(comp.key)
    assert sel.args == [comp.key]
    with qtbot.waitSignal(view.open_requested) as opened:
        view.activate(comp.key)
    assert opened.args == [chain.transcripts[2], comp.entry_id]
    # arrow keys walk the graph: right from generation 0 reaches generation 1
    first = lineage.of_kind("transcript")[0]
    view.select_node(first.key)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Right)
    assert view.selected_key() == lineage.of_kind("transcript")[1].key
    QTest.keyClick(view, Qt.Key.Key_Down)
    below = view.items_by_key[view.selected_key()].node
    assert below.generation == 1 and below.kind != "transcript"
    # a real double-click on a checkpoint opens the checkpoint file at its captured leaf
    cp = next(n for n in lineage.of_kind("checkpoint") if n.path == chain.checkpoints[1])
    item = view.items_by_key[cp.key]
    view.ensureVisible(item)
    where = view.mapFromScene(item.mapToScene(QPoint(6, 10)))
    with qtbot.waitSignal(view.open_requested) as opened:
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args == [chain.checkpoints[1], read_rows(chain.checkpoints[1])[-1]["id"]]


def test_drift_view_plots_and_lists(qtbot: Any, tmp_path: Path) -> None:
    chain = make_chain(tmp_path, 3)
    report = analyze_drift([load_transcript(p) for p in chain.transcripts])
    view = DriftView()
    qtbot.addWidget(view)
    view.set_report(report)
    assert len(view.bars.opts["x"]) + len(view.nested_bars.opts["x"]) == 3
    summaries = [o["summary"] for p in chain.transcripts for o in read_rows(p)
                 if o.get("type") == "compaction"]
    distinct = list(dict.fromkeys(summaries))
    assert [p.chars for p in report.points] == [len(s) for s in distinct]
    assert view.selected == 2
    head = view.identifiers.topLevelItem(0)
    assert head is not None
    kids = [head.child(i) for i in range(head.childCount())]
    changes = {k.text(0): k.text(2) for k in kids if k is not None}
    assert changes.get("/src/app/mod3.py") == "appeared"
    assert changes.get("/src/app/mod2.py") == "disappeared"
    with qtbot.waitSignal(view.open_requested) as opened:
        view.select_point(0)
        view._open_selected()
    assert opened.args == [report.points[0].path, report.points[0].compaction_id]


def test_compare_view_lists_the_engine_diff(qtbot: Any, tmp_path: Path) -> None:
    chain = make_chain(tmp_path, 2)
    lineage = build_lineage(chain.transcripts[0])
    a = next(n for n in lineage.of_kind("checkpoint") if n.path == chain.checkpoints[0])
    b = lineage.of_kind("transcript")[-1]
    ta, tb = load_transcript(chain.checkpoints[0]), load_transcript(chain.transcripts[-1])
    diff = compare_points(ta, tb)
    rows = {r.entry_id: r for r in build_rows(tb, tree=True)}
    rows.update({r.entry_id: r for r in build_rows(ta, tree=True)})
    view = LineageCompareView()
    qtbot.addWidget(view)
    view.set_lineage(lineage)
    view.show_result(CompareResult(a, b, diff, rows))
    missing = [i for i in _path_ids(chain.checkpoints[0])
               if i not in set(_path_ids(chain.transcripts[-1]))]
    assert [i for i in view.list_ids("summarized")] == [d.entry_id for d in diff.summarized]
    assert set(missing) <= set(view.list_ids("summarized"))
    assert view.list_ids("added") == [i for i in _path_ids(chain.transcripts[-1])
                                      if i not in set(_path_ids(chain.checkpoints[0]))]
    assert view.list_ids("removed") == []


def test_mounted_panel_builds_compares_and_restores(make_main_window: Any,
                                                    qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    chain = make_chain(folder, 3)
    ctx = make_main_window()
    parts = ctx.lineage  # app.build mounts the panel as a workbench tab
    assert parts is not None
    lin, panel = parts.controller, parts.panel
    bench = ctx.window.workbench
    assert bench.tabText(bench.indexOf(panel)) == "Lineage"
    assert bench.currentWidget() is not panel
    # while the tab is hidden, opening a file builds no lineage (it waits for the tab)
    with qtbot.waitSignal(ctx.controller.loaded, timeout=8000):
        ctx.controller.open(chain.transcripts[1])
    qtbot.waitUntil(lambda: not ctx.controller.is_busy(), timeout=8000)
    assert lin.result is None
    with qtbot.waitSignal(lin.lineage_ready, timeout=8000) as ready:
        bench.setCurrentWidget(panel)
    result = ready.args[0]
    # the GUI reads the very Chain the CLI prints
    assert result.lineage.chain == build_chain(chain.transcripts[1])
    assert [n.path for n in result.lineage.of_kind("transcript")] == chain.transcripts
    assert panel.drift.report is not None and len(panel.drift.report.points) == 3
    qtbot.waitUntil(lambda: panel.branches.model.rowCount() > 0, timeout=5000)

    # compare checkpoint 1 with the newest transcript through the panel
    cp_key = next(n.key for n in result.lineage.of_kind("checkpoint")
                  if n.path == chain.checkpoints[0])
    last_key = result.lineage.of_kind("transcript")[-1].key
    panel.graph.select_node(cp_key)
    panel.set_a.click()
    panel.graph.select_node(last_key)
    panel.set_b.click()
    with qtbot.waitSignal(lin.compare_ready, timeout=5000):
        panel.compare.run.click()
    assert panel.compare.list_ids("summarized")

    # restore: refused confirmation writes nothing; accepted writes exactly one new file
    before = set(chain.folder.iterdir())
    panel.confirm_restore = lambda *_a: False
    panel.graph.select_node(cp_key)
    with qtbot.waitSignal(lin.restore_ready, timeout=5000):
        panel.restore_button.click()
    assert set(chain.folder.iterdir()) == before
    seen: list[Any] = []

    def confirm(node: Any, plan: Any, _parent: Any) -> bool:
        seen.append((node, plan))
        return True

    panel.confirm_restore = confirm
    rebuilt: list[Any] = []
    lin.lineage_ready.connect(rebuilt.append)
    with qtbot.waitSignal(lin.restored, timeout=5000) as done:
        panel.restore_button.click()
    (new,) = set(chain.folder.iterdir()) - before
    assert done.args[0].written == (new,)
    assert seen[0][1].source == chain.checkpoints[0]
    assert seen[0][1].target == new  # the dialog named the very file the restore wrote
    head = read_rows(new)[0]
    assert head["parentSession"] == str(chain.checkpoints[0])
    assert [o["id"] for o in read_rows(new)[1:]] == [o["id"] for o in read_rows(chain.checkpoints[0])[1:]]
    qtbot.waitUntil(lambda: bool(rebuilt), timeout=8000)  # the lineage is rebuilt after it
    node = next(n for n in rebuilt[-1].lineage.of_kind("transcript") if n.path == new)
    assert node.relation == "restored"

    # open a compaction point: the session loads that file and selects the entry
    comp = next(n for n in rebuilt[-1].lineage.of_kind("compaction")
                if n.path == chain.transcripts[3] and not n.inherited)
    with qtbot.waitSignal(ctx.controller.entry_selected, timeout=8000) as sel:
        panel.graph.select_node(comp.key)
        panel.open_button.click()
    assert sel.args == [comp.entry_id]
    assert ctx.controller.path == chain.transcripts[3]
    # a theme switch reaches the panel as a palette change
    panel.setPalette(QPalette(QColor("#202124"), QColor("#202124")))
    qtbot.waitUntil(lambda: panel.graph.dark, timeout=2000)
    qtbot.waitUntil(lambda: not ctx.controller.is_busy(), timeout=10_000)  # settle first


def test_restore_dialog_builds_for_a_real_checkpoint(qtbot: Any, tmp_path: Path) -> None:
    """The dialog itself (other tests stub ``confirm_restore``): it used to raise TypeError."""
    from sessionlens.engine import build_lineage, plan_restore
    from sessionlens.gui.lineage.restore_dialog import RestoreDialog

    folder = tmp_path / "sessions"
    folder.mkdir()
    chain = make_chain(folder, 2)
    lineage = build_lineage(chain.transcripts[-1])
    node = next(n for n in lineage.of_kind("checkpoint") if n.path == chain.checkpoints[0])
    plan = plan_restore(chain.checkpoints[0])
    dlg = RestoreDialog(node, plan)
    qtbot.addWidget(dlg)
    assert dlg.files.topLevelItemCount() == 1
    row = dlg.files.topLevelItem(0)
    assert row.text(1) == str(plan.target) and plan.target.parent == folder
    assert f"{plan.entries:,} entries" in row.text(2)
    assert dlg.write_button.isEnabled()
    refused = RestoreDialog(node, "this is a Claude Code transcript")
    qtbot.addWidget(refused)
    assert not refused.write_button.isEnabled() and "Claude Code" in refused.problem.text()
