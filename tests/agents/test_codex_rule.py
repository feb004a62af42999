"""The ``codex-0.17`` rule against the 0.171.0 binary: on three sessions of different lengths
(the last one past Codex's 20,000-token budget for kept user messages), what the plan says
Codex summarizes is what the binary sent in its compaction request, what it says Codex keeps
is what the binary sent on the next turn, and its threshold decides as the binary did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.codex_checks import (
    compaction_output_lines,
    load_prefix,
)
from agents.drivers import codex
from sessionlens.engine.agents.codex.compacted import (
    COMPACT_PROMPT,
    SUMMARY_PREFIX,
    is_summary_text,
)
from sessionlens.engine.agents.codex.items import CONTEXT_PREFIXES
from sessionlens.engine.agents.codex.rule_0_17 import (
    approx_tokens,
    codex_keep,
    truncate_middle,
    user_text,
)
from sessionlens.engine.load.context_text import context_texts
from sessionlens.engine.model import Transcript
from sessionlens.engine.opened import resolve_settings
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.rules import default_cut_rule

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not codex.available(), reason="codex binary not installed")]

def _plan(t: Transcript) -> CompactionPlan:
    assert default_cut_rule(t) == "codex-0.17"
    return plan_compaction(t, resolve_settings(t).settings)


def _user_texts(items: list[dict[str, Any]]) -> list[str]:
    """The user messages Codex kept: not its own context messages, not a summary."""
    return [i["text"] for i in items if i["role"] == "user"
            and not i["text"].lstrip().startswith(CONTEXT_PREFIXES)
            and not is_summary_text(i["text"])]


@pytest.mark.parametrize(("n_extra", "words"), [(0, 0), (3, 400), (4, 3000)])
def test_plan_summarizes_and_keeps_what_codex_did(tmp_path: Path, n_extra: int,
                                                  words: int) -> None:
    run = codex.run_scenario(tmp_path / "run", n_extra=n_extra, extra_words=words)
    rollout = run.rollout
    outputs = compaction_output_lines(rollout)
    assert len(outputs) == len(run.compactions) == 2
    for k, (out_line, comp_at, after_at) in enumerate(zip(
            outputs, run.compactions, run.after, strict=True)):
        before = load_prefix(rollout, out_line, tmp_path / f"before{k}")
        plan = _plan(before)
        sent = codex.input_texts(run.requests[comp_at])
        # summarized: the whole history (the request minus the instructions and the prompt)
        assert sent[-1] == {"role": "user", "text": COMPACT_PROMPT}
        assert context_texts(before) == sent[:-1]
        in_context = {i.entry_id for i in before.context if i.kind != "compaction_summary"}
        assert in_context <= set(plan.summarize_entry_ids) and plan.kept_entry_ids == ()
        assert plan.hard_boundary and plan.first_kept_entry_id is None
        # kept: the user messages the next request carries, in order
        nxt = codex.input_texts(run.requests[after_at])
        at_summary = next(j for j, i in enumerate(nxt) if is_summary_text(i["text"]))
        kept_sent = _user_texts(nxt[:at_summary])
        keep = codex_keep([before.entry(i) for i in plan.summarize_entry_ids])
        assert keep.entry_ids == plan.copied_entry_ids
        mine = ["\n".join(truncate_middle(user_text(before.entry(i)), keep.truncated_to)
                          if i == keep.truncated_id else (before.entry(i).message.text,))  # type: ignore[union-attr]
                for i in plan.copied_entry_ids]
        assert mine == kept_sent
        # the summary the next turn starts from: Codex's prefix, then the model's answer
        summary = nxt[at_summary]["text"]
        assert summary == f"{SUMMARY_PREFIX}\n" + (codex.SUMMARY_MANUAL if k == 0
                                                   else codex.SUMMARY_AUTO)
        # the threshold: the config's limit; due exactly when Codex compacted on its own
        assert plan.threshold == codex.AUTO_LIMIT
        trigger = codex.compaction_trigger(run.requests[comp_at])
        assert plan.should_compact == (trigger == "auto")
    if words >= 3000:   # the longest session passed the budget: one kept message was cut
        last = load_prefix(rollout, outputs[1], tmp_path / "budget")
        keep = codex_keep([last.entry(i) for i in _plan(last).summarize_entry_ids])
        assert keep.truncated_id is not None and keep.tokens == 20_000
        assert approx_tokens("abcde") == 2
