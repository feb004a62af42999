"""pi's and OpenClaw's own published code against SessionLens, on every prefix of each file.

The agents' packages (pinned in ``node/package.json``) run under Node in ``harness.mjs``;
SessionLens answers the same questions through ``plan_compaction`` (``compare.py``). Every
quantity must agree on every prefix, except the one deliberate difference ``compare.py``
explains (pi prepares compactions that summarize nothing; SessionLens refuses to). Run with
``-s`` to see the counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fidelity.conftest import Differential
from fidelity.generated import pairing_rows
from fidelity.node_runner import node_unavailable, run_job
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.plan.tool_pairing import reset_kept_indices


def _no_differences(d: Differential, what: str) -> None:
    t = d.tally
    keys = [k for k in t.agree if k[0].startswith(what)]
    assert keys, f"nothing compared for {what}"
    bad = {k: t.differ[k] for k in keys if t.differ[k]}
    assert not bad, "\n".join(f"{k}: {len(v)} differ, e.g. " + "; ".join(v[:3])
                              for k, v in bad.items())
    assert all(t.agree[k] > 0 for k in keys), f"a quantity of {what} never agreed"


def test_counts(differential: Differential) -> None:
    t = differential.tally
    print("\n" + t.table())
    assert t.files == len(differential.files) and t.prefixes > 0


def test_estimates_per_message(differential: Differential) -> None:
    _no_differences(differential, "estimate")


def test_pi_cut_point(differential: Differential) -> None:
    _no_differences(differential, "pi-0.58 findCutPoint")


def test_pi_preparation(differential: Differential) -> None:
    _no_differences(differential, "pi-0.58 prepareCompaction")
    # the one explained difference does occur, and only as "prepared"
    t = differential.tally
    assert t.explained[("pi-0.58 prepareCompaction", "prepared")] > 0
    assert not any(n for k, n in t.explained.items() if k[1] != "prepared")


def test_openclaw_preparation(differential: Differential) -> None:
    _no_differences(differential, "openclaw-2026.9 prepareCompaction")


def test_openclaw_manual_compact(differential: Differential) -> None:
    _no_differences(differential, "openclaw-2026.9 manual")


@pytest.mark.parametrize("agent", ["pi-0.58", "openclaw-2026.9"])
def test_threshold_check(differential: Differential, agent: str) -> None:
    _no_differences(differential, f"{agent} threshold check")


def test_reset_pairing_is_openclaws(tmp_path: Path) -> None:
    """What a reset retains (OpenClaw's selectResetKeptEntries) on tricky tool-id runs."""
    reason = node_unavailable()
    if reason is not None:
        pytest.skip(f"needs the agents' own code: {reason}")
    files = {pairing_rows(seed).write(tmp_path / f"p{seed}.jsonl"): seed
             for seed in range(150)}
    records = run_job({"pairing": [str(p) for p in files]})
    differ = []
    for rec in records:
        path = Path(rec["pairing"])
        entries = list(load_transcript(path).entries)
        mine = reset_kept_indices(entries, 0, len(entries))
        if mine != rec["kept"]:
            differ.append(f"seed {files[path]}: OpenClaw {rec['kept']}, SessionLens {mine}")
    assert len(records) == len(files) and not differ, "\n".join(differ[:5])
