"""Aider histories: the shared history against its raw lines, one session per run, and the
token lines, commands and resets on built histories."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.agent_files import write
from sessionlens.engine.errors import LoadError
from sessionlens.engine.load.reader import load_transcript

HISTORY = "aider/brejlator/.aider.chat.history.md"


def _user_inputs(lines: list[str]) -> list[str]:
    """Each input: ``####`` lines with only blank lines between; a ``/command`` alone."""
    inputs: list[list[str]] = []
    joined = False  # the last non-blank line was part of an input that may go on
    for line in lines:
        if line.startswith("#### ") or line.rstrip() == "####":
            text = line[5:].rstrip()
            if joined and not text.startswith("/"):
                inputs[-1].append(text)
            else:
                inputs.append([text])
            joined = not text.startswith("/")
        elif line.strip():
            joined = False
    return ["\n".join(i).strip() for i in inputs]


def test_the_sample_matches_its_raw_lines_run_by_run(samples_dir: Path) -> None:
    path = samples_dir / "agents" / HISTORY
    if not path.exists():
        pytest.skip("aider sample absent")
    text = path.read_text(encoding="utf-8")
    runs = re.split(r"^# aider chat started at .*$", text, flags=re.M)[1:]
    whole = load_transcript(path)
    assert whole.format == "aider-md"
    assert sum(1 for e in whole.entries if e.type == "reset" and e.reason == "new") == len(runs)
    total_users = total_usage = total_errors = 0
    for n, body in enumerate(runs, 1):
        t = load_transcript(path / str(n))
        inputs = _user_inputs(body.split("\n"))
        commands = [i for i in inputs if i.startswith("/")
                    and not i.startswith(("/ask ", "/code ", "/architect "))]
        users = [e for e in t.entries if e.role == "user"]
        assert len(users) == len(inputs) - len(commands), n
        assert sum(1 for e in t.entries if e.type in ("command", "reset")) == len(commands)
        total_users += len(users)
        usage = [e for e in t.entries if e.message and e.message.usage]
        assert len(usage) <= len(re.findall(r"^> Tokens: ", body, re.M))
        total_usage += len(usage)
        errors = sum(1 for e in t.entries if e.extra.get("error"))
        assert errors == sum(1 for block in re.findall(r"(?:^>.*\n?)+", body, re.M)
                             if "did not conform to the edit format" in block
                             or "litellm." in block)
        total_errors += errors
        assert t.header is not None and t.header.extra["run"] == n
    assert sum(1 for e in whole.entries if e.role == "user") == total_users
    assert total_usage > 0 and total_errors > 0
    assert whole.compactions == ()
    assert any(e.timestamp for e in whole.entries if e.role == "user")  # .aider.input.history
    assert not any(e.timestamp for e in whole.entries if e.role == "assistant")
    last = load_transcript(path / str(len(runs)))
    tail = [e.id for e in whole.entries if e.message is not None][-len(
        [e for e in last.entries if e.message is not None]):]
    assert [whole.entry(i).message.text for i in tail] == [  # type: ignore[union-attr]
        e.message.text for e in last.entries if e.message is not None]


HISTORY_TEXT = """# aider chat started at 2024-08-20 14:08:19

> Aider v0.50.1
> Models: claude-3-5-sonnet with diff edit format, weak model claude-3-haiku

#### /add a.py

> Added a.py to the chat

#### fix the bug

#### in a.py

Here is the fix.

> Tokens: 10,332 sent, 439 received. Cost: $0.04 message, $0.04 session.
> The LLM did not conform to the edit format.

#### /clear

#### /ask why?

Because.

> Tokens: 2.3k sent, 1.1k received.

# aider chat started at 2024-08-21 10:00:00

#### hello again

Hi.
"""


def test_runs_commands_resets_and_token_lines(tmp_path: Path) -> None:
    path = write(tmp_path / ".aider.chat.history.md", HISTORY_TEXT)
    write(tmp_path / ".aider.input.history", "\n# 2024-08-20 14:08:30\n+/add a.py\n"
          "\n# 2024-08-20 14:09:00\n+fix the bug\n+in   a.py\n")
    first = load_transcript(path / "1")
    kinds = [(e.type, e.role) for e in first.entries]
    assert kinds == [("notice", None), ("command", None), ("notice", None),
                     ("message", "user"), ("message", "assistant"), ("notice", None),
                     ("reset", None), ("message", "user"), ("message", "assistant"),
                     ("notice", None)]
    fix = first.entries[3].message
    assert fix is not None and fix.text == "fix the bug\nin a.py"
    assert fix.timestamp_ms is None and first.entries[3].timestamp == "2024-08-20T14:09:00"
    reply = first.entries[4].message
    assert reply is not None and reply.model == "claude-3-5-sonnet" and reply.usage is not None
    assert (reply.usage.input, reply.usage.output, reply.usage.cost_total) == (10332, 439, 0.04)
    assert first.entries[5].extra["error"] is True
    rounded = first.entries[8]
    assert rounded.message is not None and rounded.message.usage is not None
    assert rounded.message.usage.input == 2300 and rounded.extra["usage_rounded"] is True
    assert first.entries[7].message.text == "why?"  # type: ignore[union-attr]
    assert [i.entry_id for i in first.context] == [first.entries[7].id, first.entries[8].id]
    whole = load_transcript(path)
    assert [e.reason for e in whole.entries if e.type == "reset"] == ["new", "clear", "new"]
    assert [whole.entry(i.entry_id).message.text for i in whole.context] == [  # type: ignore[union-attr]
        "hello again", "Hi."]
    with pytest.raises(LoadError, match="no run '3'.*holds 2"):
        load_transcript(path / "3")


def test_a_history_without_a_start_line_still_reads_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path / ".aider.chat.history.md", "#### hi\n\nhello\n")
    t = load_transcript(path)
    assert [e.role for e in t.entries if e.message] == ["user", "assistant"]
    (d,) = t.diagnostics
    assert d.severity == "warning" and "no '# aider chat started at'" in d.reason
