"""Secret detection and redaction for the "what leaves the machine" preview."""

from __future__ import annotations

import pytest

from sessionlens.engine.secrets import find_secrets, redact

CASES = [
    ("openai_key", "key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123 ok"),
    ("anthropic_key", "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuv_wxyz"),
    ("aws_access_key", "aws id AKIAIOSFODNN7EXAMPLE here"),
    ("github_token", "token ghp_0123456789abcdefghijABCDEFGHIJ012345 used"),
    ("slack_token", "slack xoxb-1234567890-abcdefghij done"),
    ("jwt", "auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("url_password", "clone https://alice:hunter2secret@git.example.com/repo.git"),
    ("bearer_token", "Authorization: Bearer abcdef0123456789abcdef0123"),
    ("password_assignment", 'db password="S3cr3t!pass" in config'),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
                    "-----END OPENSSH PRIVATE KEY-----"),
]


@pytest.mark.parametrize(("kind", "text"), CASES)
def test_each_kind_is_found_and_redacted(kind: str, text: str) -> None:
    findings = find_secrets(text)
    assert [f.kind for f in findings] == [kind]
    secret = text[findings[0].start:findings[0].end]
    cleaned = redact(text, findings)
    assert secret not in cleaned and f"[REDACTED:{kind}]" in cleaned
    assert secret not in findings[0].preview and str(len(secret)) in findings[0].preview


def test_ordinary_identifiers_are_not_secrets() -> None:
    text = ("commit 3f9a2c1d7e5b4a6f8e9d0c1b2a3f4e5d6c7b8a9f, uuid "
            "123e4567-e89b-12d3-a456-426614174000, path /srv/app/sk-notes.txt, "
            "url https://example.com/a?b=c, port localhost:8080")
    assert find_secrets(text) == ()
    assert redact(text, ()) == text


def test_spans_are_in_order_and_several_redact_together() -> None:
    text = "a AKIAIOSFODNN7EXAMPLE b ghp_0123456789abcdefghijABCDEFGHIJ012345 c"
    findings = find_secrets(text)
    assert [f.kind for f in findings] == ["aws_access_key", "github_token"]
    assert findings[0].end < findings[1].start
    assert redact(text, findings) == "a [REDACTED:aws_access_key] b [REDACTED:github_token] c"
