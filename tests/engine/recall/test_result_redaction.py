"""Every string of an answer is redacted, known values wherever they appear, and a cut
snippet loses the partial word at its cut end."""

from __future__ import annotations

from dataclasses import dataclass

from fixtures.secret_fixtures import PLANTED
from sessionlens.engine.recall.result_redaction import (
    KNOWN_PLACEHOLDER,
    known_secrets,
    redact_result,
    redact_text,
    safe_snippet,
)


@dataclass(frozen=True)
class _Inner:
    text: str
    count: int


@dataclass(frozen=True)
class _Outer:
    items: tuple[_Inner, ...]
    note: str | None
    flag: bool


def test_nested_records_are_redacted_and_numbers_kept() -> None:
    value = _Outer((_Inner(f"token {PLANTED['github_token']}", 3),), None, True)
    out = redact_result(value)
    assert PLANTED["github_token"] not in repr(out)
    assert out.items[0].count == 3 and out.note is None and out.flag is True
    assert out.items[0].text == "token [REDACTED:github_token]"


def test_a_value_known_from_its_context_goes_everywhere() -> None:
    key = PLANTED["key_assignment"]
    assert redact_text(key) == key  # bare, no pattern knows it
    known = known_secrets([f"export DEPLOY_KEY={key}\n"])
    assert key in known
    assert redact_text(f"dropped: {key}", known) == f"dropped: {KNOWN_PLACEHOLDER}"
    assert redact_result({"value": key}, known) == {"value": KNOWN_PLACEHOLDER}


def test_a_cut_snippet_loses_its_partial_edge_words() -> None:
    tail = PLANTED["openai_key"][9:]  # the pattern's prefix is cut away
    assert redact_text(f"x {tail}") == f"x {tail}"
    assert safe_snippet(f"…{tail} and then the upload test…") == "…and then the upload…"
    assert safe_snippet("whole snippet, not cut") == "whole snippet, not cut"


def test_a_flattened_private_key_loses_its_body() -> None:
    flat = ("-----BEGIN RSA PRIVATE KEY----- " + PLANTED["private_key"]
            + " Zr8Kq2mX7cLv9Tb4Ny6Hs3Pd5Fg0JaWe2uYo1Qi7Rb3MwQ== and more")
    out = redact_text(flat)
    assert PLANTED["private_key"] not in out and "Zr8Kq2mX7cLv" not in out
    assert out.endswith("and more")
