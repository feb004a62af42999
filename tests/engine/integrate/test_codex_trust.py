"""Codex's hook trust and SessionLens's PostCompact answer, without the Codex binary.

The two hashes below are what Codex 0.171.0's ``hooks/list`` reported as ``currentHash``
for these hooks (2026-12-07); tests/agents/test_codex_hooks.py checks the integration's
hashes against the binary itself.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.agents.codex.hooks import notify
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.integrate import codex_trust
from sessionlens.engine.integrate.install import apply_changes, plan_changes
from sessionlens.engine.integrate.journal import read_journal

ROLLOUT = (Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "codex-0.171.0"
           / "scenario" / "rollout.jsonl")


def test_hash_is_the_one_codex_reports() -> None:
    hook = {"type": "command", "command": "sh -c 'cat > /tmp/cx1/pre.json'", "timeout": 60}
    assert codex_trust.hook_hash("pre_compact", "", hook) == (
        "sha256:298e08d0bb3aa90f58a7261f5d86e58ed829fe9eaff88fa9416a77e4c18d1496")
    post = dict(hook, command="sh -c 'cat > /tmp/cx1/post.json'")
    assert codex_trust.hook_hash("post_compact", "", post) == (
        "sha256:d176b40657fc35a8b0b96b6b6ebfa81db562fc3e31b7845336fd565069a5295b")
    assert codex_trust.hook_hash("pre_compact", "", dict(hook, timeout=61)) != \
        codex_trust.hook_hash("pre_compact", "", hook)


def _home(tmp_path: Path) -> Path:
    toml = tmp_path / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('model = "m"\n\n[model_providers.local]\nname = "x"\n')
    return toml


def test_integrate_trusts_exactly_its_own_hooks_once(tmp_path: Path) -> None:
    toml = _home(tmp_path)
    hooks = tmp_path / ".codex" / "hooks.json"
    hooks.write_text(json.dumps({"hooks": {"PostCompact": [
        {"matcher": "", "hooks": [{"type": "command", "command": "mine.sh"}]}]}}))
    folders = user_folders(tmp_path / "sl")
    apply_changes(plan_changes("codex", folders, home=tmp_path))
    text = toml.read_text()
    where = hooks.resolve()
    assert f'[hooks.state."{where}:post_compact:1:0"]' in text     # after the user's group
    assert "mine.sh" not in text and text.count("trusted_hash") == 1
    assert "PreCompact" not in json.loads(hooks.read_text())["hooks"]
    ours = json.loads(hooks.read_text())["hooks"]["PostCompact"][1]
    digest = codex_trust.hook_hash("post_compact", "", ours["hooks"][0])
    assert f'trusted_hash = "{digest}"' in text
    assert plan_changes("codex", folders, home=tmp_path) == []     # a second run: no edit
    apply_changes(plan_changes("codex", folders, home=tmp_path, uninstall=True))
    assert "hooks.state" not in toml.read_text()
    assert json.loads(hooks.read_text())["hooks"]["PostCompact"][0]["hooks"][0]["command"] \
        == "mine.sh"


def test_trust_the_user_gave_in_codex_is_kept_and_a_clash_refused(tmp_path: Path) -> None:
    toml = _home(tmp_path)
    folders = user_folders(tmp_path / "sl")
    apply_changes(plan_changes("codex", folders, home=tmp_path))
    text = toml.read_text()
    # as if the user had trusted them in Codex's own review: the same tables, not ours
    theirs = (text.replace(codex_trust.BEGIN + "\n", "")
              .replace(codex_trust.END + "\n", ""))
    toml.write_text(theirs)
    assert plan_changes("codex", folders, home=tmp_path) == []
    toml.write_text(theirs.replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0', 1))
    with pytest.raises(ConfigError, match="trust them in Codex"):
        plan_changes("codex", folders, home=tmp_path)


def test_post_compact_journals_the_audit_of_codex_summary(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    shutil.copy(ROLLOUT, rollout)
    folders = user_folders(tmp_path / "sl")
    answer = notify("post-compact", {"session_id": "s1", "trigger": "auto", "model": "m",
                                     "transcript_path": str(rollout)}, folders)
    assert answer.code == 0 and "audit of Codex's summary" in answer.stderr
    [entry] = read_journal(folders.state).entries
    assert (entry.agent, entry.writer, entry.trigger) == ("codex", "agent", "auto")
    assert entry.audit_passed is not None and entry.extra["compaction_id"]
    assert entry.extra["summary_chars"] > 0
    assert notify("pre-compact", {"transcript_path": str(rollout)}, folders).code == 0
    assert len(read_journal(folders.state).entries) == 1


def test_post_compact_on_a_missing_rollout_journals_why_and_exits_0(tmp_path: Path) -> None:
    folders = user_folders(tmp_path / "sl")
    answer = notify("post-compact", {"trigger": "manual",
                                     "transcript_path": str(tmp_path / "gone.jsonl")}, folders)
    assert answer.code == 0
    [entry] = read_journal(folders.state).entries
    assert entry.audit_passed is None and "could not audit" in entry.fallback_reason
