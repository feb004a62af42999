"""``sessionlens integrate codex`` against Codex 0.171.0: its automatic (local) compaction
asks with SessionLens's prompt file, the user's standing focus in it.

Found by running it: the compaction request's last user message is the prompt file's text
instead of Codex's own compact prompt. The PreCompact/PostCompact hooks the integration
installs beside it are checked in test_codex_hooks.py (they run once config.toml trusts them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from agents.drivers.sessionlens_side import write_prefs
from fixtures.scripted_model import Reply, Request, Script, ScriptedModel
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.integrate.install import apply_changes, plan_changes

ROOT = Path(__file__).resolve().parents[2]
CODEX = (ROOT / "tests/fidelity/node/node_modules/@openai/codex-linux-x64/vendor"
         / "x86_64-unknown-linux-musl/bin/codex")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (CODEX.is_file() and os.access(CODEX, os.X_OK)), reason="Codex 0.171.0 missing")]
FOCUS = "Keep the vault layout a/b/c and every file name."


def is_compaction(r: Request) -> bool:
    meta = r.body.get("client_metadata")
    turn = meta.get("x-codex-turn-metadata") if isinstance(meta, dict) else None
    return isinstance(turn, str) and '"request_kind":"compact' in turn.replace(" ", "")


def test_integrated_prompt_file_is_what_codex_compacts_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, work, base = tmp_path / "codex-home", tmp_path / "work", tmp_path / "sessionlens"
    home.mkdir()
    work.mkdir()
    write_prefs(base, focus=FOCUS)
    script = Script.of([Reply("First answer.", input_tokens=90_000)], fallback=Reply("More."))
    script.when(is_compaction, lambda _r: Reply("CODEX SUMMARY."))
    with ScriptedModel(script) as server:
        (home / "config.toml").write_text(
            'model = "m"\nmodel_provider = "local"\nmodel_auto_compact_token_limit = 60000\n'
            'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n'
            "[analytics]\nenabled = false\n[model_providers.local]\n"
            f'name = "scripted"\nbase_url = "{server.url}/v1"\nwire_api = "responses"\n'
            'env_key = "SCRIPTED_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n',
            "utf-8")
        monkeypatch.setenv("CODEX_HOME", str(home))
        apply_changes(plan_changes("codex", user_folders(base), home=tmp_path))
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home),
               "SCRIPTED_KEY": "x", "NO_PROXY": "127.0.0.1", "RUST_LOG": "error"}
        sid = None
        for prompt in ("first question", "second question"):
            args = [str(CODEX), "exec", "--skip-git-repo-check", "--color", "never"]
            args += ["resume", sid, prompt] if sid else [prompt]
            done = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=120, check=False)
            assert done.returncode == 0, done.stderr[-1000:]
            m = re.search(r"session id: ([0-9a-f-]{36})", done.stderr + done.stdout)
            sid = sid or (m.group(1) if m else None)
        compactions = [r for r in server.requests if is_compaction(r)]
    assert len(compactions) == 1
    asked = compactions[0].last_user_text()
    assert FOCUS in asked and asked.startswith("You are compacting a coding session")
    assert "CODEX SUMMARY." in json.dumps(server.requests[-1].body)
