"""A successor SessionLens writes for pi, resumed by the pi 1.6.0 binary (issue 33).

For a session pi 1.6 wrote (with a compaction of its own) and for the real samples 01 (pi,
v1) and 03, 04 (OpenClaw v3), copied into pi's sessions folder of a temporary HOME, SessionLens
compacts the file with focus instructions into a successor (``compact --provider offline
--write successor``), pi resumes that successor (``pi --mode rpc --session FILE``) and
answers one prompt. The request pi sends is held against SessionLens's replayed context of
the successor (``inspect --json`` ``context``), as pi puts it on the wire: the system
prompt first, the summary wrapped in pi's compaction prefix, a ``!`` command as pi renders
it, errored turns left out, an orphaned tool call answered by pi-ai's "No result provided";
then the new prompt. Then pi's
appended turn must read back cleanly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.drivers.pi import pi_driver_unavailable
from agents.drivers.pi_resume import (
    RESUME_PROMPT,
    RESUMED_ANSWER,
    SL_FOCUS,
    Resumed,
    pi_home,
    pi_written_session,
    place_sample,
    resume_successor,
    scripted_server,
)
from fixtures.samples import SAMPLES_DIR
from fixtures.scripted_model import Request, _text_of
from sessionlens.engine.load.context_messages import context_json
from sessionlens.engine.load.reader import load_transcript, load_transcript_bytes
from sessionlens.engine.model import Message, Transcript

pytestmark = pytest.mark.slow

#: pi's wrapping of a compaction summary (pi-coding-agent 1.6.0 core/messages.js).
PREFIX = "The conversation history before this point was compacted into the following " \
         "summary:\n\n<summary>\n"
SUFFIX = "\n</summary>"
SAMPLES = ("01_", "03_", "04_")
Wire = list[tuple[str, str, tuple[str, ...]]]


def _run(case: str, root: Path) -> Resumed:
    with scripted_server(case == "pi-1.6.0") as server:
        home, cwd = pi_home(root, server)
        if case == "pi-1.6.0":
            original = pi_written_session(home, cwd)
        else:
            found = sorted(SAMPLES_DIR.glob(f"{case}*.jsonl"))
            if not found:
                pytest.skip(f"the real sample {case}* is absent")
            original = place_sample(found[0], home, cwd)
        return resume_successor(original, home, cwd, server, root / "basedir")


@pytest.fixture(scope="module", params=["pi-1.6.0", *SAMPLES])
def resumed(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Resumed]:
    reason = pi_driver_unavailable()
    if reason is not None:
        pytest.skip(f"needs pi 1.6.0: {reason}")
    yield _run(request.param, tmp_path_factory.mktemp(f"resume-{request.param}"))


def _wire(request: Request) -> Wire:
    out = []
    for m in request.messages():
        calls = tuple(c["function"]["name"] for c in m.get("tool_calls") or [])
        out.append((m["role"], _text_of(m.get("content")), calls))
    return out


def _bash_text(msg: Message) -> str:
    """pi's ``bashExecutionToText`` (1.6.0 core/messages.js): how a ``!`` command goes."""
    text = f"Ran `{msg.command}`\n"
    text += f"```\n{msg.output}\n```" if msg.output else "(no output)"
    if msg.cancelled:
        text += "\n\n(command cancelled)"
    elif msg.exit_code not in (None, 0):
        text += f"\n\nCommand exited with code {msg.exit_code}"
    if msg.truncated and msg.full_output_path:
        text += f"\n\n[Output truncated. Full output: {msg.full_output_path}]"
    return text


def _as_pi_sends(t: Transcript, context: list[dict[str, Any]]) -> Wire:
    """``context`` (without system items) as pi sends it: ``convertToLlm`` (a summary in
    pi's prefix, a ``!`` command as its text) then pi-ai's ``transformMessages``."""
    out: Wire = []
    pending: list[str] = []

    def close() -> None:
        out.extend(("tool", "No result provided", ()) for _ in pending)
        pending.clear()

    for item in context:
        role, text = item["role"], item["text"]
        msg = t.entry(item["entry_id"]).message
        if role == "assistant":
            close()
            assert msg is not None
            if msg.stop_reason in ("error", "aborted"):
                continue
            pending.extend(c.id for c in msg.tool_calls)
            out.append(("assistant", text, tuple(item.get("calls", ()))))
        elif role == "toolResult":
            assert msg is not None
            if msg.tool_call_id in pending:
                pending.remove(msg.tool_call_id)
            out.append(("tool", text, ()))
        elif role == "bashExecution":
            close()
            assert msg is not None
            out.append(("user", _bash_text(msg), ()))
        elif role != "system":
            close()
            out.append(("user", PREFIX + text + SUFFIX if role == "compactionSummary" else text,
                        ()))
    close()
    return out


def test_successor_was_written_with_the_focus(resumed: Resumed) -> None:
    comp = resumed.compacted
    assert comp["first_kept_entry_id"] and comp["summary"]
    rows = [json.loads(line) for line in resumed.written.splitlines()]
    written = rows[-1]
    assert written["type"] == "compaction" and written["summary"] == comp["summary"]
    assert written["sessionlens"]["instructions"] == SL_FOCUS


def test_the_pi_session_holds_what_pi_16_writes(resumed: Resumed) -> None:
    """The pi-written original: a stored system prompt, pi's own compactions (manual, then
    the overflow one) with ``systemMessage``, and the context_edit hiding the failed
    attempt; the successor keeps no edit of an entry it left out."""
    if resumed.original.parent.name == "--sample--":
        pytest.skip("a sample")
    t = load_transcript(resumed.original)
    assert [e.type for e in t.entries].count("context_edit") == 1
    comps = [e for e in t.entries if e.type == "compaction"]
    assert len(comps) == 2 and all(c.system_message is not None for c in comps)
    rows = [json.loads(line) for line in resumed.written.splitlines()]
    ids = {r.get("id") for r in rows}
    assert all(r["targetId"] in ids for r in rows if r["type"] == "context_edit")


def test_pi_sends_exactly_the_replayed_context_and_the_prompt(resumed: Resumed) -> None:
    assert len(resumed.requests) == 1, [r.last_user_text()[:80] for r in resumed.requests]
    sent = _wire(resumed.requests[0])
    context = resumed.before["context"]
    t = load_transcript(resumed.successor)
    assert sent[0][0] == "system" and all(role != "system" for role, _, _ in sent[1:])
    assert context[0]["role"] == "compactionSummary" or context[1]["role"] == \
        "compactionSummary"
    assert sent[1:] == [*_as_pi_sends(t, context), ("user", RESUME_PROMPT, ())]


def test_the_system_prompt_is_the_one_in_the_file(resumed: Resumed) -> None:
    """A pi 1.6 file holds its system prompt: the successor carries it (the compaction's
    ``systemMessage``), pi sends exactly that and writes no new one. A sample holds none:
    pi adds its own prompt after the compaction, and SessionLens reads that row as sent."""
    sent = _wire(resumed.requests[0])[0][1]
    system = [c["text"] for c in resumed.before["context"] if c["role"] == "system"]
    after = load_transcript(resumed.successor)
    new = after.entries[len(_as_written(resumed).entries):]
    new_system = [m["text"] for m in context_json(after) if m["role"] == "system"
                  and m["entry_id"] in {e.id for e in new}]
    if resumed.original.parent.name == "--sample--":
        assert system == [] and new_system == [sent]
    else:
        assert system == [sent] and new_system == [] and len(sent) > 500


def _as_written(resumed: Resumed) -> Transcript:
    """The successor as SessionLens wrote it (before pi appended to it)."""
    return load_transcript_bytes(resumed.written, resumed.successor)


def test_pi_appends_to_the_successor_cleanly(resumed: Resumed) -> None:
    data = resumed.successor.read_bytes()
    assert data.startswith(resumed.written) and len(data) > len(resumed.written)
    after = load_transcript(resumed.successor)
    assert after.diagnostics == ()
    before = _as_written(resumed)
    new = after.entries[len(before.entries):]
    roles = [e.role for e in new]
    assert roles[-2:] == ["user", "assistant"] and set(roles[:-2]) <= {"system"}
    assert new[0].parent_id == before.leaf_id and after.leaf_id == new[-1].id
    mine = [(m["role"], m["text"]) for m in context_json(after)]
    was = [(m["role"], m["text"]) for m in resumed.before["context"]]
    assert [m for m in mine if m[0] != "system"] == [
        *[m for m in was if m[0] != "system"], ("user", RESUME_PROMPT),
        ("assistant", RESUMED_ANSWER)]
