"""``sessionlens integrate codex`` makes Codex 0.171.0 run SessionLens's compaction hooks.

Why they did not fire before: Codex runs a hook from hooks.json only once config.toml
trusts it (``[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash``);
``hooks/list`` reported ours "untrusted". The integration now writes that trust, with the
hash Codex itself computes (checked here against ``hooks/list``), and a real manual
compaction (app-server ``thread/compact/start``) and a real automatic one (``codex exec``
past ``model_auto_compact_token_limit``) each run SessionLens's PostCompact hook, whose
journal line holds the audit of the summary Codex wrote, the same as ``sessionlens audit``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import codex
from agents.drivers.sessionlens_side import journal, write_prefs
from fixtures.scripted_model import Reply, Script, ScriptedModel
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.integrate.install import apply_changes, plan_changes
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not codex.available(), reason="codex binary not installed")]


def _sessionlens(*words: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "sessionlens.engine.cli", *words, "--json"], capture_output=True, text=True,
                          check=True, timeout=120)
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _hooks_list(session: codex.CodexSession) -> list[dict[str, Any]]:
    """Codex's own view of the hooks (app-server ``hooks/list``)."""
    calls = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"clientInfo": {"name": "sessionlens-tests", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
              "params": {"cwds": [str(session.work)]}}]
    proc = subprocess.Popen([str(codex.BINARY), "app-server"], cwd=session.work,
                            env=session.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(c) + "\n" for c in calls))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            obj = json.loads(line)
            if obj.get("id") == 2:
                hooks: list[dict[str, Any]] = obj["result"]["data"][0]["hooks"]
                return hooks
        raise AssertionError("app-server closed before answering hooks/list")
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)


def test_integrated_hooks_audit_codex_summaries_manual_and_auto(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "sessionlens"
    write_prefs(base, focus="Keep notes.txt's lines in order.")
    with ScriptedModel(codex.scenario_script()) as server:
        session = codex.CodexSession(tmp_path / "run", server, codex.AUTO_LIMIT)
        monkeypatch.setenv("CODEX_HOME", str(session.home))
        changes = plan_changes("codex", user_folders(base), home=tmp_path)
        assert {c.path.name for c in changes} == {"config.toml", "hooks.json",
                                                  "codex-compact-prompt.md"}
        apply_changes(changes)
        listed = {h["eventName"]: h for h in _hooks_list(session)}
        assert {e: h["trustStatus"] for e, h in listed.items()} == {"postCompact": "trusted"}
        assert "sessionlens" in listed["postCompact"]["command"]

        session.turn("Show me notes.txt.")
        session.turn("Remember that gamma comes next.")
        rollout = session.rollout()
        first_user = next(e.id for e in load_transcript(rollout).entries
                          if e.message is not None and e.role == "user"
                          and "notes.txt" in (e.message.text or ""))
        add_pins(load_transcript(rollout), [first_user], base / "state")
        session.turn("This one fails.")
        session.compact()                       # manual, through app-server
        session.turn("What did we do so far?")
        session.turn("Write a long answer.")    # passes the limit
        session.turn("And after the automatic compaction?")
    compacted = [json.loads(line) for line in rollout.read_text().splitlines()
                 if json.loads(line)["type"] == "compacted"]
    assert len(compacted) == 2
    lines = journal(base)
    assert [(e["agent"], e["trigger"], e["extra"]["hook_event"]) for e in lines] == [
        ("codex", "manual", "PostCompact"), ("codex", "auto", "PostCompact")]
    ids = [c.id for c in load_transcript(rollout).entries if c.type == "compaction"]
    assert [e["extra"]["compaction_id"] for e in lines] == ids
    for entry, cid, summary in zip(lines, ids, (codex.SUMMARY_MANUAL, codex.SUMMARY_AUTO),
                                   strict=True):
        assert entry["session_file"] == str(rollout) and entry["writer"] == "agent"
        assert entry["extra"]["summary_chars"] >= len(summary)
        audited = _sessionlens("audit", str(rollout), "--compaction", cid)
        assert entry["failed_checks"] == [c["name"] for c in audited["checks"]
                                          if not c["passed"]] + (
            ["pinned"] if entry["pins_missing"] else [])
        assert entry["audit_passed"] is (audited["passed"] and not entry["pins_missing"])
    # Codex cannot be told about a pin (its hooks are notify-only): the audit says so
    assert lines[0]["pins_missing"] and not lines[0]["pins_kept"]
    assert not lines[0]["audit_passed"]
    shown = _sessionlens("journal", "--basedir", str(base))
    assert [e["extra"]["compaction_id"] for e in shown["entries"]] == ids


def test_untrusted_hooks_do_not_run_and_uninstall_removes_the_trust(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the trust block (the state before this fix) Codex lists our hooks as
    untrusted and an automatic compaction runs no hook; ``--uninstall`` takes the block out."""
    base = tmp_path / "sessionlens"
    script = Script.of([Reply("A long answer.", input_tokens=codex.AUTO_PUSH)],
                       fallback=Reply("OK."))
    script.when(codex.is_compaction_request, Reply(codex.SUMMARY_AUTO))
    with ScriptedModel(script) as server:
        session = codex.CodexSession(tmp_path / "run", server, codex.AUTO_LIMIT)
        monkeypatch.setenv("CODEX_HOME", str(session.home))
        original = (session.home / "config.toml").read_text("utf-8")
        apply_changes(plan_changes("codex", user_folders(base), home=tmp_path))
        toml = session.home / "config.toml"
        with_trust = toml.read_text("utf-8")
        assert "[hooks.state." in with_trust
        toml.write_text(with_trust[:with_trust.index("# >>> sessionlens")], "utf-8")
        assert {h["trustStatus"] for h in _hooks_list(session)} == {"untrusted"}
        session.turn("Write a long answer.")
        session.turn("And after?")
        assert any(codex.is_compaction_request(r) for r in server.requests)
    assert journal(base) == []
    toml.write_text(with_trust, "utf-8")
    apply_changes(plan_changes("codex", user_folders(base), home=tmp_path, uninstall=True))
    assert toml.read_text("utf-8").strip() == original.strip()
    assert not (session.home / "hooks.json").exists() or "sessionlens" not in (
        session.home / "hooks.json").read_text("utf-8")
