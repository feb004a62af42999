"""Drift of compaction summaries along a chain: size, repeated sections, identifiers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fixtures.chains import make_chain
from fixtures.factories import TranscriptBuilder
from fixtures.written import read_rows
from sessionlens.engine.lineage.drift import analyze_drift, summary_identifiers
from sessionlens.engine.lineage.graph import build_lineage
from sessionlens.engine.load.reader import load_transcript


def sample_path(samples: Path, prefix: str) -> Path:
    """The sample named ``prefix*`` (local: ``conftest`` is ambiguous beside tests/gui)."""
    found = sorted(samples.glob(f"{prefix}*"))
    if not found:
        pytest.skip(f"sample {prefix}* not found")
    return found[0]


def test_ten_deep_chain_drift(tmp_path: Path) -> None:
    files = make_chain(tmp_path, 10, store=False)
    lineage = build_lineage(files.transcripts[-1])
    report = analyze_drift([load_transcript(p) for p in lineage.transcript_paths()])
    distinct: list[str] = []
    for p in files.transcripts:
        for o in read_rows(p):
            if o.get("type") == "compaction" and o["id"] not in distinct:
                distinct.append(o["id"])
    assert [pt.compaction_id for pt in report.points] == distinct
    assert [pt.chars for pt in report.points] == [len(s) for s in files.summaries]
    assert [pt.tokens for pt in report.points] == [math.ceil(len(s) / 4)
                                                   for s in files.summaries]
    assert report.points[0].growth is None
    assert report.points[1].growth == pytest.approx(len(files.summaries[1])
                                                    / len(files.summaries[0]))
    # every third summary nests an older one: "## Progress" twice
    nested = [pt.index for pt in report.points if pt.repeated_headings]
    assert nested == [g - 1 for g in range(1, 11) if g % 3 == 2]
    assert all(pt.repeated_headings == ("## Progress",) for pt in report.points
               if pt.repeated_headings)
    (progress,) = [s for s in report.repeated_sections]
    assert progress.heading == "## Progress" and progress.present_in == tuple(range(10))
    assert progress.repeated_in == tuple(nested) and progress.max_copies == 2
    # per-generation module paths come and go; the shared one stays throughout
    p4 = report.points[3]  # generation 4
    assert "/src/app/mod4.py" in [i.value for i in p4.appeared]
    assert "/src/app/mod3.py" in [i.value for i in p4.disappeared]
    tracks = {t.value: t for t in report.identifiers}
    assert tracks["/src/app/settings.py"].present_in == tuple(range(10))
    assert not tracks["/src/app/settings.py"].lost_at
    url = tracks["https://example.test/t/1234"]
    assert url.present_in == (0, 1, 2) and url.lost_at == (3,)
    assert url in report.lost_identifiers
    assert tracks["/src/app/mod10.py"] not in report.lost_identifiers
    assert report.total_growth == pytest.approx(len(files.summaries[-1])
                                                / len(files.summaries[0]))


def test_reappearing_identifier_and_inherited_compactions() -> None:
    b = TranscriptBuilder()
    b.user("go")
    b.compaction("## Notes\nsee /etc/app/main.conf")
    b.user("more")
    b.compaction("## Notes\nnothing specific")
    b.user("again")
    b.compaction("## Notes\nback to /etc/app/main.conf")
    t = b.build()
    report = analyze_drift([t, t])  # a successor repeats its predecessor's compactions
    assert len(report.points) == 3
    assert [i.value for i in report.points[1].disappeared] == ["/etc/app/main.conf"]
    assert [i.value for i in report.points[2].reappeared] == ["/etc/app/main.conf"]
    assert not report.lost_identifiers
    assert analyze_drift([]).points == ()


def test_summary_identifiers_match_the_audit_rules() -> None:
    found = summary_identifiers("x", "ran `pytest -q` on /srv/a/b.py, see https://h.test/x")
    values = {i.value for i in found}
    assert {"/srv/a/b.py", "https://h.test/x"} <= values


@pytest.mark.samples
def test_sample_01_summaries(samples_dir: Path) -> None:
    path = sample_path(samples_dir, "01_")
    objs = [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]
    summaries = [o["summary"] for o in objs if o.get("type") == "compaction"]
    report = analyze_drift([load_transcript(path)])
    assert [p.chars for p in report.points] == [len(s) for s in summaries]
    heads = [[ln.strip() for ln in s.splitlines() if ln.strip().startswith("#")]
             for s in summaries]
    assert [list(p.headings) for p in report.points] == heads
