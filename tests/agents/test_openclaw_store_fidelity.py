"""``inspect --json`` of each session of the store OpenClaw 2026.9.6 wrote equals what
OpenClaw's own code reads from it: its read-only reader (the zstd decoder it registers in
SQLite), its SessionManager's tree and leaf, and its replay (``buildSessionContext``, then the
cleanup its runner applies before a model call), run from the pinned package under Node 24
on the committed store. No agent binary runs; the store was written by one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agents.drivers import openclaw as oc
from fixtures.openclaw_store import STORE_XZ, unpack_store
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.summarize.serialize import entry_to_llm_message

SCRIPT = Path(oc.__file__).with_name("openclaw_context.mjs")
DIST = oc.NODE_MODULES / "openclaw" / "dist"
STORE_DIR = STORE_XZ.parent

needs_node = pytest.mark.skipif(not oc.available(), reason="Node 24 / openclaw not installed")


def openclaw_reads(store: Path, sessions: list[str]) -> dict[str, Any]:
    done = subprocess.run([str(oc.NODE_BIN / "node"), str(SCRIPT), str(DIST), str(store),
                           *sessions], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(done.stdout)
    return out


@needs_node
def test_inspect_equals_openclaws_own_reading(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    store = unpack_store(tmp_path / "home")
    sessions = ["alpha", "beta"]
    before = store.read_bytes()
    theirs = openclaw_reads(store, sessions)
    assert store.read_bytes() == before
    for session in sessions:
        assert main(["inspect", "--json", str(store / session)]) == 0
        ours = json.loads(capsys.readouterr().out)
        want = theirs[session]
        t = load_transcript(store / session)
        assert [e.id for e in t.entries] == want["entries"], session
        assert ours["entries"]["total"] == len(want["entries"])
        assert ours["active_path"] == want["active_path"], session
        assert ours["leaf_id"] == want["leaf_id"]
        assert [(c["role"], c["text"]) for c in ours["context"]] == \
            [(c["role"], c["text"]) for c in want["context"]], session
        assert not [d for d in ours["diagnostics"] if "version" in d["reason"]]
    alpha = theirs["alpha"]["context"]
    # the manual compaction's gateway-injected status reply is in the store, not in the replay
    assert not any(c["text"].startswith("\u2699\ufe0f Compacted") for c in alpha)
    assert alpha[0]["text"].startswith("The conversation history before this point was "
                                       "compacted")


def test_the_replay_is_what_openclaw_sent_after_the_manual_compaction(tmp_path: Path) -> None:
    """The request OpenClaw sent on the turn after ``/compact`` (recorded by the scripted
    model): the summary, the kept reply, the ``/compact`` turn and the new prompt, each with
    OpenClaw's time stamp in front; the gateway's "Compacted" status reply is not sent."""
    sent = json.loads((STORE_DIR / "sent-after-manual-compaction.json").read_text())["messages"]
    sent = [m for m in sent if not oc._text(m["content"]).startswith(oc.INTERNAL)]
    t = load_transcript(unpack_store(tmp_path / "home") / "alpha")
    ours = [entry_to_llm_message(t.entry(i.entry_id)) for i in t.context][:-1]  # minus reply
    assert [m.role for m in ours if m] == [m["role"] for m in sent]
    for mine, theirs in zip(ours, sent, strict=True):
        assert mine is not None and mine.text.strip() in oc._text(theirs["content"])
    assert not any("Compacted (" in oc._text(m["content"]) for m in sent)
