"""Error messages found in any text, and what is not one."""

from __future__ import annotations

import pytest

from sessionlens.engine.contract.error_lines import exit_code_pattern, find_errors, message_errors
from sessionlens.engine.model import Message, TextBlock


def _errors(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.value) for f in find_errors(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("collected 4 items\n\nE   ValueError: parser failed at step 5\n1 failed",
     [("exception", "ValueError: parser failed at step 5")]),
    ("FAILED tests/test_a.py::test_x - AssertionError: boom",
     [("test", "FAILED tests/test_a.py::test_x"), ("exception", "AssertionError: boom")]),
    ("error[E0308]: mismatched types\n --> src/main.rs:4:5",
     [("line", "error[E0308]: mismatched types")]),
    ("Traceback (most recent call last):\n  File \"a.py\", line 3\nKeyError: 'user_id'",
     [("exception", "KeyError: 'user_id'")]),
    ("The run fails with `KeyError: 'user_id'` in auth.py.", [("exception", "KeyError: 'user_id'")]),
    ("2026-01-01 12:00:00 ERROR - db down", [("line", "ERROR - db down")]),
    ('{"error": "missing_brave_api_key"}', [("json", "missing_brave_api_key")]),
    ("Process exited with code 2", [("exit", "exit code 2")]),
])
def test_errors_are_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert _errors(text) == expected


@pytest.mark.parametrize("text", [
    "    except ValueError: pass", "raise ValueError('x')", "there was an error in the parser",
    "  const { models, error: availableError } = await load();", "  error: string;",
    "Exit code: 0", "warning: unused import",
])
def test_code_and_prose_are_not_errors(text: str) -> None:
    assert _errors(text) == []


def test_exit_codes_name_their_command_and_grep_finding_nothing_is_no_error() -> None:
    run = Message(role="bashExecution", command="npm run build", output="done", exit_code=2)
    assert list(message_errors(run)) == [("exit code 2", "npm run build -> exit code 2", ("npm",))]
    grep = Message(role="toolResult", content=(TextBlock("(no output)\n\nexit code 1"),))
    assert list(message_errors(grep, "grep -n needle src/")) == []
    assert exit_code_pattern(2).search("the build failed (exit status 2)")
    assert not exit_code_pattern(2).search("exit code 20")
