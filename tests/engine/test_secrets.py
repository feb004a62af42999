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


def test_every_planted_kind_is_found_with_its_exact_value() -> None:
    from fixtures.secret_fixtures import PLANTED

    for kind, value in PLANTED.items():
        text = {"aws_secret_key": f"aws_secret_access_key = {value}",
                "key_assignment": f"DEPLOY_KEY={value}", "password_assignment": f"pwd: {value}",
                "url_password": f"redis://:{value}@cache:6379", "bearer_token": f"Bearer {value}",
                "private_key": f"-----BEGIN PRIVATE KEY-----\n{value}\n-----END PRIVATE KEY-----",
                }.get(kind, f"here: {value} .")
        (f,) = find_secrets(text)
        assert f.kind == kind and value in text[f.start:f.end], kind


@pytest.mark.parametrize("text", [
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    'AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "api_key: 0123456789abcdef0123456789abcdef01234567",
    'args={\\"client_secret\\": \\"Zr8Kq2mX7cLv9Tb4Ny6H\\"}',
    "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA1234\\nabcdEFGH==\\n[... 300 more characters",
])
def test_named_values_escaped_quotes_and_cut_pem_blocks(text: str) -> None:
    (f,) = find_secrets(text)
    assert len(text[f.start:f.end]) >= 16 and "[..." not in text[f.start:f.end]


def test_counters_and_settings_next_to_key_names_are_not_secrets() -> None:
    text = ("max_tokens: 16384, tokenBudget=200000, token_count=123456789, tokens_before=30000, "
            "password: required, cache_key=src/main.py, primaryKey: userId, "
            "secret: [REDACTED:openai_key#1], reserveTokens: 16384")
    assert find_secrets(text) == ()


def test_a_run_redactor_numbers_each_secret_once_and_never_puts_it_back() -> None:
    from sessionlens.engine.secrets import Redactor

    a, b = "ghp_" + "a1B2" * 9, "ghp_" + "z9Y8" * 9
    r = Redactor()
    one = r.redact(f"first {a} then {b}", "chunk 1/2")
    two = r.redact(f"again {b} and {a}", "chunk 2/2")
    assert one == "first [REDACTED:github_token#1] then [REDACTED:github_token#2]"
    assert two == "again [REDACTED:github_token#2] and [REDACTED:github_token#1]"
    assert r.redact(one, "merge") == one  # placeholders are never findings
    notes = r.notes()
    assert {(n.where, n.placeholder) for n in notes} >= {("chunk 1/2", "[REDACTED:github_token#1]"),
                                                         ("chunk 2/2", "[REDACTED:github_token#2]")}
    assert not any(a in repr(n) or b in repr(n) for n in notes)


def test_kept_values_are_sent_and_known_values_of_any_length_are_not() -> None:
    from sessionlens.engine.secrets import Redactor

    key = "sk-proj-" + "Q7" * 12
    r = Redactor(keep={key}, known=["x9"])
    assert r.redact(f"use {key} with token x9 now", "chunk") == (
        f"use {key} with token [REDACTED:configured_key] now")


def test_scrub_removes_configured_keys_echoes_and_keeps_placeholders() -> None:
    from sessionlens.engine.secrets import Redactor, scrub

    echoed = "AKIA" + "Q3EGRV5XNJ4ZP7TB"
    summary = f"Use key ab1 and {echoed}; earlier [REDACTED:openai_key#1] stays."
    assert scrub(summary, ["ab1"]) == ("Use key [REDACTED:configured_key] and "
                                       "[REDACTED:aws_access_key#1]; earlier "
                                       "[REDACTED:openai_key#1] stays.")
    # with the run's redactor, an echoed value reads as the placeholder the requests carried
    run = Redactor()
    sent = run.redact("the word is Hunter22x", "chunk")  # nothing names it a secret
    assert sent == "the word is Hunter22x"
    run.redact(f"password={'Hunter22x'}", "chunk")
    assert scrub("the model says Hunter22x", redactor=run) == (
        "the model says [REDACTED:password_assignment#1]")
    assert scrub("[REDACTED:configured_key]", ["RED"]) == "[REDACTED:configured_key]"


@pytest.mark.parametrize(("text", "value"), [
    # issue 39 item 15: a space instead of `=`, and prose
    ("DEEPSEEK_KEY 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"),
    ("and my api key is 3b5d5c3712955042212316173ccf37be80d8a4c1 if needed",
     "3b5d5c3712955042212316173ccf37be80d8a4c1"),
    ("the password was Tr0ub4dor&3x", "Tr0ub4dor&3x"),
    # item 2: an app password of four groups of four letters, named by its field
    ('{"to": "a@b.c", "app_password": "abcd efgh ijkl mnop"}', "abcd efgh ijkl mnop"),
    ('args={\\"app_password\\": \\"abcd efgh ijkl mnop\\"}', "abcd efgh ijkl mnop"),
    ('send_mail(to="a@b.c", app_password="abcd efgh ijkl mnop")', "abcd efgh ijkl mnop"),
    ("gmail app password: abcd efgh ijkl mnop", "abcd efgh ijkl mnop"),
    # credentials named by JSON field names in arguments and results
    ('{"password": "correct horse battery staple"}', "correct horse battery staple"),
    ('{"passwd": "s3cr3t-pw"}', "s3cr3t-pw"),
    ('{"client_secret": "q7Lk2Zr8-x9Tb4Ny6Hs3Pd"}', "q7Lk2Zr8-x9Tb4Ny6Hs3Pd"),
    ('{"token": "a1b2c3d4e5f6g7"}', "a1b2c3d4e5f6g7"),
    ('{"api_key": "key-live-0042"}', "key-live-0042"),
    ('{"apikey": "Zr8Kq2mX7cLv"}', "Zr8Kq2mX7cLv"),
    ('{"private_key": "base64:QmFzZTY0"}', "base64:QmFzZTY0"),
    ('{"access_key": "minio-admin-77"}', "minio-admin-77"),
    ('{"secret": "the deploy word"}', "the deploy word"),
])
def test_credentials_named_by_a_field_a_space_or_prose_are_found(text: str, value: str) -> None:
    blanked = redact(text, find_secrets(text))
    assert value not in blanked and "[REDACTED:" in blanked, blanked


@pytest.mark.parametrize("text", [
    '{"max_tokens": "4096", "token_type": "Bearer", "tokenizer": "cl100k_base"}',
    '{"password": "", "token": null, "secret": "********", "passwd": "${DB_PASSWORD}"}',
    "a token of appreciation; the password is required; this that with from",
    '{"input_tokens": 1200, "token_count": 33, "key_id": "k-1"}',
])
def test_field_names_that_count_or_describe_credentials_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == ()


def test_a_value_named_once_is_blanked_where_it_shows_without_its_name() -> None:
    from sessionlens.engine.transcript_secrets import blank_values, secret_values

    value = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
    seen = secret_values([f"DEEPSEEK_KEY {value}", '{"token": "sent"}'])
    assert seen == {value: "key_assignment"}  # "sent" is too short to blank everywhere
    assert blank_values(f"dropped: {value}, sent", seen) == (
        "dropped: [REDACTED:key_assignment], sent", 1)


def test_a_secret_after_text_that_lowercases_longer_is_still_found() -> None:
    """The detector searches around its trigger words' places in the lowercased text; a
    character whose lowercase is longer (U+0130) must not shift those places off."""
    text = "\u0130" * 500 + " DEEPSEEK_KEY 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
    assert [f.kind for f in find_secrets(text)] == ["key_assignment"]
