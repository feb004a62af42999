"""Today's pi against SessionLens: pi 1.6.0 and 0.73.1's own code, on every prefix.

``harness_pi.mjs`` runs the pinned releases under the pinned Node (pi 1.6 needs >= 22.19);
``compare_pi.py`` asks SessionLens the same questions with the rule that stands for each
release. Every quantity must agree on every prefix of samples 01, 03, 04, of the generated
sessions and of generated sessions with what only pi 1.6 writes, at keepRecentTokens 2,000,
8,000 and 20,000, and so must the threshold decision. The old default ``pi-0.58`` is
compared too, to measure what a user of today's pi was told before (it must differ). Run
with ``-s`` to see the counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fidelity.conftest import DifferentialPi
from fidelity.generated import generated_session_16
from fidelity.node_runner import HARNESS_PI, pi_unavailable, run_job
from sessionlens.engine.load.context_messages import context_messages
from sessionlens.engine.load.reader import load_transcript

PI16_FILES = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "pi-1.6.0"


def _no_differences(d: DifferentialPi, what: str) -> None:
    t = d.tally.quantities
    keys = [k for k in t.agree if k[0] == what]
    assert keys, f"nothing compared for {what}"
    bad = {k: t.differ[k] for k in keys if t.differ[k]}
    assert not bad, "\n".join(f"{k}: {len(v)} differ, e.g. " + "; ".join(v[:3])
                              for k, v in bad.items())
    assert all(t.agree[k] > 0 for k in keys), f"a quantity of {what} never agreed"
    assert d.tally.differing[what] == 0


def test_counts(differential_pi: DifferentialPi) -> None:
    t = differential_pi.tally
    print("\n" + t.table())
    assert t.quantities.files == len(differential_pi.files)
    # the old default really was wrong for a user of today's pi
    assert t.differing["pi-0.58 vs pi 1.6.0 (before)"] > 1000
    assert t.differing["pi-0.58 vs pi 0.73.1 (before)"] > 1000


def test_pi16_rule_is_pi_16(differential_pi: DifferentialPi) -> None:
    _no_differences(differential_pi, "pi-1.6 vs pi 1.6.0")
    # pi 1.6 refuses an empty compaction itself: nothing is left to explain but a bash run
    # kept out of the context being all there is to summarize
    t = differential_pi.tally.quantities
    assert t.explained[("pi-1.6 vs pi 1.6.0", "prepared")] < 20


def test_pi073_rule_is_pi_073(differential_pi: DifferentialPi) -> None:
    _no_differences(differential_pi, "pi-0.73 vs pi 0.73.1")


def _their_context(messages: list[dict[str, Any]]) -> list[tuple[str, str, tuple[str, ...]]]:
    # pi drops a bash run kept out of the context when it converts for the model
    return [(m["role"], m["text"], tuple(m.get("calls", ()))) for m in messages
            if not m.get("excluded")]


def replay_differences(paths: list[Path]) -> list[str]:
    """Files whose replayed context is not pi 1.6's own ``buildSessionContext``."""
    records = run_job({"context": [str(p) for p in paths]}, harness=HARNESS_PI)
    out = []
    for p, rec in zip(paths, records, strict=True):
        assert rec["context"] == str(p)
        theirs = _their_context(rec["messages"])
        mine = [(m.role, m.text, m.calls) for m in context_messages(load_transcript(p))]
        if theirs != mine:
            first = next((i for i, (a, b) in enumerate(zip(theirs, mine, strict=False))
                          if a != b),
                         min(len(theirs), len(mine)))
            out.append(f"{p.name}: pi {len(theirs)} messages, SessionLens {len(mine)}; first "
                       f"difference at {first}: pi {theirs[first:first + 1]}, "
                       f"SessionLens {mine[first:first + 1]}")
    return out


def test_replay_is_pi16_build_session_context(tmp_path: Path) -> None:
    """Files with context edits, stored system messages, compactions with a systemMessage
    (also keeping nothing) and usage rows replay to exactly pi 1.6's context: generated ones
    and the ones pi 1.6 wrote (``tests/fixtures/agents/pi-1.6.0``)."""
    reason = pi_unavailable()
    if reason is not None:
        pytest.skip(f"needs today's pi: {reason}")
    paths = [generated_session_16(seed).write(tmp_path / f"g{seed}.jsonl") for seed in range(80)]
    written = sorted(PI16_FILES.glob("*[!s].jsonl"))  # the files pi 1.6 wrote, not requests
    assert len(written) >= 2
    differ = replay_differences(paths + written)
    assert not differ, "\n".join(differ[:5])
