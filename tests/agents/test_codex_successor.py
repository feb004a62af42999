"""A successor SessionLens writes for a Codex 0.171.0 rollout, resumed by the binary: the next
request starts from SessionLens's summary and exactly the kept messages, nothing summarized
comes back, and SessionLens reads the successor as Codex then sends it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agents.drivers import codex
from fixtures.scripted_model import Reply, Script, ScriptedModel
from sessionlens.engine.agents.codex.compacted import SUMMARY_PREFIX
from sessionlens.engine.agents.codex.rule_0_17 import user_text
from sessionlens.engine.compaction import prepare_write, user_summary_outcome, write_prepared
from sessionlens.engine.errors import AuditGateError, PersistError
from sessionlens.engine.load.context_text import context_texts
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.opened import resolve_settings
from sessionlens.engine.persist.writer import write_compaction
from sessionlens.engine.plan.planner import plan_compaction

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not codex.available(), reason="codex binary not installed")]

SUMMARY = ("## Goal\n- keep notes.txt tidy; the user asked 'And after the automatic "
           "compaction?'\n\n## Progress\n- notes.txt holds alpha and beta (cat notes.txt)\n"
           "- gamma comes next\n\n## Next\n- answer the user's last question")


def test_codex_resumes_the_successor_from_sessionlens_summary(tmp_path: Path) -> None:
    run = codex.run_scenario(tmp_path / "run")
    original = run.rollout
    before = hashlib.sha256(original.read_bytes()).hexdigest()
    t = load_transcript(original)
    plan = plan_compaction(t, resolve_settings(t).settings)
    outcome = user_summary_outcome(t, plan, SUMMARY)
    prepared = prepare_write(t, outcome)
    (target,) = prepared.written_paths
    # the dry run names the real file, in the day folder of the same Codex home
    assert not target.exists() and target.parent.parent.parent.parent.name == "sessions"
    assert target.name.startswith("rollout-") and prepared.session_id in target.name
    assert outcome.audit.passed is False        # the test summary lacks the template's headings
    with pytest.raises(AuditGateError):         # gated: nothing written without consent
        write_prepared(t, prepared)
    assert not target.exists()
    result = write_prepared(t, prepared, accept_failed_audit=True)
    assert result.written == (target,) and target.is_file()
    assert hashlib.sha256(original.read_bytes()).hexdigest() == before   # never touched
    written = context_texts(load_transcript(target))    # before Codex appends its turn

    with ScriptedModel(Script.of([Reply("Resumed from SessionLens's summary.")])) as server:
        session = codex.CodexSession(tmp_path / "run", server, codex.AUTO_LIMIT)
        done = session.turn("next", resume=prepared.session_id)
        assert done.returncode == 0, done.stderr[-2000:]
        (request,) = server.requests
    sent = codex.input_texts(request)
    kept = [t.entry(i) for i in plan.copied_entry_ids]
    summary_at = next(i for i, item in enumerate(sent) if item["text"].startswith(SUMMARY_PREFIX))
    # the summary is SessionLens's, text equal, then the new prompt and nothing else
    assert sent[summary_at] == {"role": "user", "text": f"{SUMMARY_PREFIX}\n{SUMMARY}"}
    assert sent[summary_at + 1:] == [{"role": "user", "text": "next"}]
    # before it: Codex's instructions, then exactly the kept user messages (with the initial
    # context Codex's own compaction puts before the newest of them)
    users = [i["text"] for i in sent[1:summary_at] if i["role"] == "user"
             and not i["text"].startswith("<environment_context>")]
    assert users == [user_text(e) for e in kept]
    assert [i["role"] for i in sent[1:summary_at]].count("developer") == 1
    # nothing summarized reappears: no assistant turn, tool call or tool result
    assert not [i for i in sent if i["role"] in ("assistant", "tool_call", "tool_result")]
    # SessionLens read the successor as Codex then sent it
    assert written == sent[:-1]


def test_a_write_that_cannot_be_done_is_refused_before_summarizing(tmp_path: Path) -> None:
    stray = tmp_path / "rollout-x.jsonl"
    stray.write_bytes(codex_fixture_bytes())
    t = load_transcript(stray)
    plan = plan_compaction(t, resolve_settings(t).settings)
    with pytest.raises(PersistError, match="not in a Codex home"):
        prepare_write(t, user_summary_outcome(t, plan, SUMMARY))
    with pytest.raises(PersistError, match="never appended"):
        write_compaction(t, prepare_write_record(t), "append")


def codex_fixture_bytes() -> bytes:
    from agents.codex_checks import FIXTURE

    return (FIXTURE / "rollout.jsonl").read_bytes()


def prepare_write_record(t):  # type: ignore[no-untyped-def]
    from sessionlens.engine.compaction import compaction_record

    plan = plan_compaction(t, resolve_settings(t).settings)
    return compaction_record(user_summary_outcome(t, plan, SUMMARY))
