"""The offline (extractive) provider: templates, budgets, merges, and never inventing a fact."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.llm_wire import plan_for
from fixtures.scenarios import small_transcript
from sessionlens.engine.contract.templates import REQUIRED_SECTIONS, TURN_PREFIX_SECTIONS
from sessionlens.engine.errors import ProviderError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.summarize.providers import (
    ChatMessage,
    CompletionRequest,
    OfflineProvider,
    SummarySource,
)
from sessionlens.engine.summarize.runner import summarize_plan

IDENT_SECTIONS = ("## Critical Context", "## Exact identifiers", "## Context for Suffix")


def listed_identifiers(summary: str) -> list[str]:
    """The `...` items the summary lists under its identifier sections."""
    out, current = [], ""
    for line in summary.splitlines():
        if line.startswith("#"):
            current = line.strip()
        elif current in IDENT_SECTIONS:
            m = re.fullmatch(r"- `([^`]+)`", line.strip())
            if m:
                out.append(m.group(1))
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k != "details" for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def raw_haystack(t: Transcript, ids: tuple[str, ...], previous: str | None) -> str:
    """Every string in the source JSON lines of the entries, read back from disk."""
    parts = [previous or ""]
    for entry_id in ids:
        raw = t.raw_line(t.entry(entry_id))
        parts.extend(_strings(json.loads(raw)))
    return "\n".join(parts)


def req(source: SummarySource, max_tokens: int = 4000) -> CompletionRequest:
    return CompletionRequest("s", (ChatMessage("user", "p"),), max_tokens, None, source)


def render(source: SummarySource, max_tokens: int = 4000) -> str:
    return asyncio.run(OfflineProvider().complete(req(source, max_tokens))).text


@pytest.mark.samples
@pytest.mark.parametrize("template", ["structured", "safeguard"])
def test_every_sample_gets_all_sections_and_only_real_identifiers(samples_dir: Path,
                                                                  template: str) -> None:
    files = sorted(samples_dir.glob("*.jsonl"))
    assert files
    for path in files:
        t = load_transcript(path)
        plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
        result = asyncio.run(summarize_plan(t, plan, OfflineProvider(), template=template))
        lines = {line.strip() for line in result.summary.splitlines()}
        missing = [h for h in REQUIRED_SECTIONS[template] if h not in lines]
        assert not missing, f"{path.name}: {missing}"
        listed = listed_identifiers(result.summary)
        assert listed, path.name
        hay = raw_haystack(t, plan.summarized_entry_ids, plan.previous_summary)
        invented = [i for i in listed if i not in hay]
        assert not invented, f"{path.name}: {invented[:5]}"
        assert len(result.summary) <= 16_000


def test_same_input_same_output_and_only_transcript_words() -> None:
    t = small_transcript()
    src = SummarySource("history", "structured", t.entries)
    first, second = render(src), render(src)
    assert first == second
    hay = "\n".join(raw for e in t.entries for raw in _strings(
        {"t": e.message.text if e.message else "",
         "a": [c.arguments for c in e.message.tool_calls] if e.message else []}))
    for ident in listed_identifiers(first):
        assert ident in hay
    assert "never touch the CI config" in first


def test_structured_sections_carry_the_facts() -> None:
    t = small_transcript()
    text = render(SummarySource("history", "structured", t.entries))
    sections = dict(re.findall(r"^(#+ [^\n]+)\n(.*?)(?=^#|\Z)", text, re.M | re.S))
    assert "Fix the flaky upload test" in sections["## Goal"]
    # a constraint is said once: here the first ask is that very sentence, in the goal
    assert text.count("never touch the CI config") == 1
    assert "ConnectionResetError" in sections["### Blocked"]
    assert "tmp_path instead of /tmp/uploads" in sections["## Key Decisions"]
    # the latest request is said once, in the goal (no "Address the latest..." repeat)
    assert "- Latest user request: Thanks, keep going." in sections["## Goal"]
    assert text.count("Thanks, keep going.") == 1
    crit = sections["## Critical Context"]
    for ident in ("services/upload/handler.py", "staging.example.com:9091",
                  "pytest tests/test_upload.py -k flaky"):
        assert f"`{ident}`" in crit


def test_safeguard_puts_latest_ask_first() -> None:
    t = small_transcript()
    text = render(SummarySource("history", "safeguard", t.entries))
    pending = text.split("## Pending user asks\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert pending[0] == "- Thanks, keep going."
    assert any("port 9091" in p for p in pending[1:])
    assert text.index("## Decisions") < text.index("## Exact identifiers")


def test_update_keeps_previous_summary_items() -> None:
    t = small_transcript()
    previous = "## Goal\n- Ship v2.3.1\n\n## Critical Context\n- `deadbeefcafe1234`"
    text = render(SummarySource("history", "structured", t.entries, previous_summary=previous))
    assert "- Ship v2.3.1" in text and "`deadbeefcafe1234`" in text
    assert "Fix the flaky upload test" in text


def test_merge_unions_parts_and_latest_ask_wins() -> None:
    b = TranscriptBuilder()
    b.user("First ask about /srv/one.txt")
    first = render(SummarySource("history", "structured", tuple(b.build().entries)))
    b2 = TranscriptBuilder()
    b2.user("Second ask about /srv/two.txt")
    second = render(SummarySource("history", "structured", tuple(b2.build().entries)))
    merged = render(SummarySource("merge", "structured", parts=(first, second)))
    assert "`/srv/one.txt`" in merged and "`/srv/two.txt`" in merged
    assert merged.count("Latest user request:") == 1
    assert "- Latest user request: Second ask about /srv/two.txt" in merged


def test_budget_is_respected_and_the_cut_is_said() -> None:
    b = TranscriptBuilder()
    for i in range(60):
        call = b.call("bash", command=f"make target_{i:03d}")
        b.assistant(f"Step {i}.", call)
        b.result(call, f"built /out/artifact_{i:03d}.bin")
    b.user("Now publish /out/artifact_059.bin to https://dl.example.com/releases")
    text = render(SummarySource("history", "structured", tuple(b.build().entries)), 400)
    assert len(text) <= 1600
    assert re.search(r"\(\d+ more items left out to fit the summary budget\)", text)
    assert "Latest user request: Now publish" in text
    assert all(h in text.splitlines() for h in REQUIRED_SECTIONS["structured"])


def test_turn_prefix_layout() -> None:
    t = small_transcript()
    text = render(SummarySource("turn_prefix", "structured", t.entries[:3]))
    assert [ln for ln in text.splitlines() if ln.startswith("## ")] == list(TURN_PREFIX_SECTIONS)
    assert "Fix the flaky upload test" in text


def test_needs_structured_source() -> None:
    with pytest.raises(ProviderError, match="needs the entries"):
        asyncio.run(OfflineProvider().complete(
            CompletionRequest("s", (ChatMessage("user", "p"),), 100)))


def test_plan_with_previous_compaction_summary_embedded() -> None:
    b = TranscriptBuilder()
    b.user("Start: migrate db to schema v7")
    b.compaction("## Goal\n- migrate db to schema v7\n\n## Critical Context\n- `ab12cd34ef56`")
    b.user("continue with table users_2024")
    b.assistant("ok")
    t = b.build()
    result = asyncio.run(summarize_plan(t, plan_for(t), OfflineProvider()))
    assert "`ab12cd34ef56`" in result.summary and "users_2024" in result.summary


@pytest.mark.samples
def test_offline_summaries_pass_the_audit_on_every_sample(samples_dir: Path) -> None:
    from sessionlens.engine.audit.report import audit_summary

    for path in sorted(samples_dir.glob("*.jsonl")):
        t = load_transcript(path)
        plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
        for template in ("structured", "safeguard"):
            result = asyncio.run(summarize_plan(t, plan, OfflineProvider(), template=template))
            report = audit_summary(t, result.summary, template=template,
                                   summarized_entry_ids=plan.summarize_entry_ids
                                   + plan.turn_prefix_entry_ids)
            failed = [(c.name, c.detail) for c in report.checks if not c.passed]
            assert report.passed, f"{path.name} {template}: {failed}"
