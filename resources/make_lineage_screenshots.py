"""Render the lineage graph and the drift plot on a chain grown from a real session.

Usage: QT_QPA_PLATFORM=offscreen python resources/make_lineage_screenshots.py
       [TRANSCRIPT] [--generations N] [--out resources/screenshots]

Grows a chain in a temp folder (nothing is written next to TRANSCRIPT, by default the
bundled sample session): generation 0 is the first slice of the session; each further
generation is ``sessionlens compact --provider offline --write successor`` (successor,
checkpoint copy and sessions.json record, exactly as the app writes them) followed by the
next slice of the session's lines. Then one checkpoint is restored into a fork and one file
archived as ``.reset.``, so every kind of node appears. The engine builds the lineage and
the drift report; the two views are grabbed at a fixed size.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]


def _append(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append ``rows`` to ``path`` as one line of descent from the file's last entry."""
    last = _lines(path)[-1]
    leaf = None if last.get("type") == "session" else last["id"]
    with open(path, "a", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({**row, "parentId": leaf}) + "\n")
            leaf = row["id"]


def _compact(path: Path, keep_recent: int) -> dict[str, Any]:
    from sessionlens.engine.cli import main as cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli(["compact", str(path), "--provider", "offline", "--write", "successor",
                    "--keep-recent", str(keep_recent), "--json"])
    if code != 0:
        raise SystemExit(f"compact failed on {path}")
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def grow_chain(source: Path, folder: Path, generations: int) -> Path:
    """Write the chain into ``folder``; returns the newest transcript."""
    rows = _lines(source)
    header, body = rows[0], [r for r in rows[1:] if r.get("type") != "compaction"]
    first_slice = len(body) // (generations + 1)
    slices = [body[i:i + first_slice] for i in range(0, len(body), first_slice)]
    gen0 = folder / f"{header['id']}.jsonl"
    gen0.write_text(json.dumps(header) + "\n")
    _append(gen0, slices[0])
    (folder / "sessions.json").write_text(json.dumps({"agent:main:main": {
        "sessionId": header["id"], "updatedAt": 0,
        "sessionFile": f"/home/dev/.openclaw/agents/main/sessions/{gen0.name}"}}, indent=2))
    current = gen0
    for gen in range(1, generations + 1):
        result = _compact(current, 1500)
        current = Path(next(p for p in result["written"] if "_" in Path(p).name
                            and ".checkpoint." not in p))
        if gen < len(slices):
            _append(current, slices[gen])
    return current


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("transcript", type=Path, nargs="?")
    p.add_argument("--generations", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "screenshots")
    args = p.parse_args(argv)

    from PySide6.QtWidgets import QApplication  # noqa: TID251 - a GUI screenshot script

    from sessionlens.engine import (
        analyze_drift,
        build_lineage,
        load_transcript,
        restore_checkpoint,
    )
    from sessionlens.gui.lineage.drift_view import DriftView
    from sessionlens.gui.lineage.graph import LineageGraphView
    from sessionlens.gui.paths import bundled_sample_path

    source = args.transcript or bundled_sample_path()
    work = Path(tempfile.mkdtemp(prefix="sessionlens-lineage-"))
    newest = grow_chain(source, work, args.generations)
    lineage = build_lineage(newest)
    checkpoints = [n for n in lineage.of_kind("checkpoint") if n.path is not None]
    if len(checkpoints) > 2:
        restore_checkpoint(checkpoints[2].path)  # a fork from an older point
    transcripts = lineage.transcript_paths()
    if len(transcripts) > 1:
        shutil.copyfile(transcripts[1], transcripts[1].with_name(
            transcripts[1].name + ".reset.2026-01-31T08-00-00.000Z"))
    lineage = build_lineage(newest)
    drift = analyze_drift([load_transcript(p) for p in lineage.transcript_paths()])

    app = QApplication.instance() or QApplication(["shots"])
    args.out.mkdir(parents=True, exist_ok=True)
    graph = LineageGraphView()
    graph.set_dark(False)
    graph.resize(1600, 330)
    graph.set_lineage(lineage, newest)
    mid = [n for n in lineage.of_kind("compaction") if not n.inherited]
    if mid:
        graph.select_node(mid[len(mid) // 2].key)
    graph.show()
    app.processEvents()
    graph.grab().save(str(args.out / "lineage.png"))
    drift_view = DriftView()
    drift_view.resize(1100, 700)
    drift_view.set_report(drift)
    drift_view.show()
    app.processEvents()
    drift_view.grab().save(str(args.out / "drift.png"))
    print(f"chain of {len(lineage.transcript_paths())} transcripts in {work}")
    print(f"wrote {args.out / 'lineage.png'} and {args.out / 'drift.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
