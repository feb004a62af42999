"""Pins through every provider path, edits re-audited, the user's own summary, provenance."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder, text_of
from fixtures.llm_wire import Act, WireServer
from sessionlens.engine import (
    DEFAULT_SETTINGS,
    AuditGateError,
    CompactionOptions,
    OfflineProvider,
    build_provider,
    load_transcript,
    plan_compaction,
    prepare_write,
    run_compaction,
    write_prepared,
)
from sessionlens.engine.compaction import audit_edit, edited_outcome, user_summary_outcome
from sessionlens.engine.contract.pinned import PINNED_BLOCK_HEAD

RULE = "Rule from the user: never run migrations on prod-db-7 before 09:00 UTC."


def _session(tmp_path: Path) -> tuple[Path, str]:
    b = TranscriptBuilder()
    pinned = b.user(RULE).id
    b.assistant("Understood, I will keep that rule.")
    for i in range(8):
        b.user(f"step {i}: refactor module_{i} {text_of(1200)}")
        b.assistant(f"done with module_{i}", usage=2000 * (i + 1))
    b.user("now ship it")
    b.assistant("shipping", usage=30_000)
    return b.write(tmp_path / "s.jsonl"), pinned


def _run(path: Path, provider: object, pins: tuple[str, ...]):  # type: ignore[no-untyped-def]
    t = load_transcript(path)
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True, keep_recent_tokens=400)
    return t, asyncio.run(run_compaction(t, plan, provider,  # type: ignore[arg-type]
                                         CompactionOptions(pins=pins)))


@pytest.mark.parametrize("kind", ["offline", "openai", "anthropic"])
def test_a_pinned_entry_before_the_cut_is_in_every_providers_summary_verbatim(
        tmp_path: Path, wire: WireServer, kind: str) -> None:
    path, pinned = _session(tmp_path)
    wire.default = Act("stream", text="## Goal\n- refactor the modules\n\n## Next Steps\n- ship")
    provider = OfflineProvider() if kind == "offline" else build_provider(wire.profile(kind))
    t, out = _run(path, provider, (pinned,))
    assert pinned in out.plan.summarized_entry_ids
    assert f"> {RULE}" in out.summary and PINNED_BLOCK_HEAD in out.summary
    assert out.audit.check("pinned").passed
    assert out.provenance.origin == "generated"
    assert out.provenance.provider_kind == kind
    if kind != "offline":
        assert wire.seen, "the model was asked"
        assert out.provenance.model and out.provenance.model == out.result.model
        # the pinned block is the engine's, not the model's: the model never wrote it
        assert all(PINNED_BLOCK_HEAD not in json.dumps(b) for b in wire.bodies)


def test_removing_the_pinned_text_fails_the_audit_and_the_gate_refuses(tmp_path: Path) -> None:
    path, pinned = _session(tmp_path)
    t, out = _run(path, OfflineProvider(), (pinned,))
    # the offline summary quotes the user's words elsewhere too: take out every copy
    stripped = out.summary.replace(RULE, "(removed)")
    report = audit_edit(t, out, stripped)
    check = report.check("pinned")
    assert not check.passed and pinned in check.detail and not report.passed
    edited = edited_outcome(t, out, stripped, report=report)
    assert edited.provenance.origin == "edited" and edited.generated_summary == out.summary
    with pytest.raises(AuditGateError):
        write_prepared(t, prepare_write(t, edited, "successor"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_an_accepted_edit_is_written_with_provenance_edited(tmp_path: Path) -> None:
    path, pinned = _session(tmp_path)
    t, out = _run(path, OfflineProvider(), (pinned,))
    text = out.summary + "\n\nNote from the user: the CI is flaky on Fridays."
    edited = edited_outcome(t, out, text)
    assert edited.audit.passed == audit_edit(t, out, text).passed
    wrote = write_prepared(t, prepare_write(t, edited, "successor"), accept_failed_audit=True)
    assert wrote.successor_path is not None
    last = json.loads(wrote.successor_path.read_text().splitlines()[-1])
    assert last["summary"] == text
    assert last["details"]["summaryProvenance"] == {
        "origin": "edited", "provider": "offline", "providerKind": "offline",
        "model": out.result.model}
    assert last["sessionlens"]["pinned"] == [pinned]
    assert wrote.checkpoint_path is not None
    assert last["sessionlens"]["checkpoint"] == wrote.checkpoint_path.name


def test_the_users_own_summary_calls_no_provider_and_is_audited(tmp_path: Path) -> None:
    path, pinned = _session(tmp_path)
    t = load_transcript(path)
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True, keep_recent_tokens=400)
    out = user_summary_outcome(t, plan, "my own words", CompactionOptions(pins=(pinned,)))
    assert out.summary == "my own words" and out.provenance.origin == "user"
    assert not out.audit.check("pinned").passed and not out.audit.check("sections").passed
