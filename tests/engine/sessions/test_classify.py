"""What a file in a session folder is, from its name alone."""

from __future__ import annotations

import pytest

from sessionlens.engine.sessions.classify import classify_session_file

UUID = "0b0e6c1e-1111-4222-8333-444455556666"


@pytest.mark.parametrize("name, kind", [
    (f"{UUID}.jsonl", "primary"),
    (f"{UUID}-topic-42.jsonl", "primary"),
    (f"2026-01-01T10-00-00-000Z_{UUID}.jsonl", "primary"),
    (f"{UUID}.checkpoint.{UUID}.jsonl", "checkpoint"),
    (f"{UUID}.trajectory.jsonl", "trajectory"),
    (f"{UUID}.trajectory-path.json", "trajectory"),
    (f"{UUID}.jsonl.reset.2026-01-01T10-00-00.000Z", "archive-reset"),
    (f"{UUID}.jsonl.deleted.2026-01-01T10-00-00.000Z", "archive-deleted"),
    (f"{UUID}.jsonl.bak.2026-01-01T10-00-00.000Z", "archive-bak"),
    ("sessions.json.bak.3", "archive-bak"),
    (f"{UUID}.jsonl.lock", "lock"),
    (f"{UUID}.corrupt-2026-01-01T10-00-00-000Z-ab12cd34.jsonl", "corrupt"),
    (f"{UUID}.jsonl.truncate-tmp", "temp"),
    ("sessions.json", "store"),
    ("notes.txt", "other"),
])
def test_file_names_are_classified(name: str, kind: str) -> None:
    assert classify_session_file(name) == kind
