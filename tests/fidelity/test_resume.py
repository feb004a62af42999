"""A successor SessionLens writes resumes, in pi's own SessionManager, with the original's
model and thinking level; an append does too.

For the real samples (copied to a temporary folder first: a successor is written beside its
original) and for generated sessions, successors are written for the file's own rule's cut
and for a hard boundary (which drops every assistant message). pi 0.58.3's
``SessionManager.open(successor).buildSessionContext()`` must give the model and thinking
level its ``buildSessionContext`` gives for the original.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fidelity.conftest import SAMPLE_PREFIXES
from fidelity.generated import generated_session
from fidelity.node_runner import node_unavailable, run_job
from fixtures.samples import SAMPLES_DIR
from sessionlens.engine.errors import PlanError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.writer import append_compaction, write_successor
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import CompactionSettings

SEEDS = range(0, 60, 3)
SETTINGS = CompactionSettings(keep_recent_tokens=3_000, context_window=60_000)


def _originals(folder: Path) -> list[Path]:
    out = []
    if SAMPLES_DIR.is_dir():
        for prefix in SAMPLE_PREFIXES:
            for sample in sorted(SAMPLES_DIR.glob(f"{prefix}*"))[:1]:
                own = folder / sample.stem
                own.mkdir()
                out.append(Path(shutil.copy(sample, own / sample.name)))
    for seed in SEEDS:
        own = folder / f"gen-{seed}"
        own.mkdir()
        out.append(generated_session(seed).write(own / f"gen-{seed}.jsonl"))
    return out


def _record(plan_first_kept: str | None, tokens_before: int) -> CompactionRecord:
    return CompactionRecord(summary="## Goal\nresume here", first_kept_entry_id=plan_first_kept,
                            tokens_before=tokens_before)


def _written(original: Path) -> list[tuple[str, Path]]:
    """(what, file) pairs: successors for the rule's cut and a hard boundary, and an append."""
    out: list[tuple[str, Path]] = []
    t = load_transcript(original)
    for hard in (False, True):
        try:
            plan = plan_compaction(t, SETTINGS, hard_boundary=hard)
        except PlanError:
            continue
        # two successors of one original on purpose: each cut is resumed by pi on its own
        res = write_successor(t, _record(plan.first_kept_entry_id, plan.tokens_before),
                              allow_second_successor=True)
        assert res.successor_path is not None
        out.append(("hard boundary" if hard else plan.cut_rule, res.successor_path))
    if t.format == "openclaw-v3" and t.path_entries()[-1].type != "compaction":
        copy = original.with_name("appended-" + original.name)
        shutil.copy(original, copy)
        append_compaction(load_transcript(copy), _record(None, 0))
        out.append(("append", copy))
    return out


def _restored_rows(successor: Path, original: Path) -> int:
    known = {e.id for e in load_transcript(original).entries}
    rows = [json.loads(line) for line in successor.read_text(encoding="utf-8").splitlines()[1:]]
    return sum(1 for r in rows if r["type"] in ("model_change", "thinking_level_change")
               and r["id"] not in known)


@pytest.fixture(scope="module")
def resumed(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    reason = node_unavailable()
    if reason is not None:
        pytest.skip(f"the resume test needs pi's own SessionManager: {reason}")
    originals = _originals(tmp_path_factory.mktemp("resume"))
    written = {o: _written(o) for o in originals}
    job = {"state": [str(o) for o in originals],
           "resume": [str(p) for o in originals for _, p in written[o]]}
    records = run_job(job)
    states = {r["state"]: r for r in records if "state" in r}
    resumes = {r["resume"]: r for r in records if "resume" in r}
    out = []
    for o in originals:
        for what, path in written[o]:
            out.append({"original": o, "what": what, "path": path, "want": states[str(o)],
                        "got": resumes[str(path)], "restored": _restored_rows(path, o)})
    return out


def test_successors_resume_with_the_originals_model_and_thinking_level(resumed) -> None:
    assert resumed
    wrong = [f"{r['original'].name} ({r['what']}): pi resumes {r['got']['model']}/"
             f"{r['got']['thinkingLevel']}, the original {r['want']['model']}/"
             f"{r['want']['thinkingLevel']}" for r in resumed
             if (r["got"]["model"], r["got"]["thinkingLevel"])
             != (r["want"]["model"], r["want"]["thinkingLevel"])]
    assert not wrong, "\n".join(wrong)


def test_restored_rows_were_needed_and_only_for_successors(resumed) -> None:
    hard = [r for r in resumed if r["what"] == "hard boundary"]
    # a hard boundary drops every assistant: the model must come back in a written row
    assert any(r["restored"] for r in hard)
    assert all(r["restored"] == 0 for r in resumed if r["what"] == "append")
    assert {r["what"] for r in resumed} >= {"pi-1.6", "openclaw-2026.9", "hard boundary",
                                            "append"}


@pytest.mark.samples
def test_the_samples_are_among_them(samples_dir: Path, resumed) -> None:
    """Skipped (by ``samples_dir``) when the real samples are absent: then none can be."""
    names = {r["original"].name[:3] for r in resumed}
    assert set(SAMPLE_PREFIXES) <= names
