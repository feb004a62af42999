"""Identifier extraction: OpenClaw's strict set (§3.6) and SessionLens's entity classes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.contract.identifiers import (
    OPENCLAW_MAX_IDENTIFIERS,
    entry_text,
    extract_identifiers,
    extract_opaque_identifiers,
    is_pure_hex,
    summary_contains,
)
from sessionlens.engine.model import Message, TextBlock, ThinkingBlock

# --------------------------------------------------------------------------- OpenClaw set

def test_opaque_trims_uppercases_and_dedupes() -> None:
    text = ('see ("deadbeef01"), DEADBEEF01 again, <https://x.io/a?b=1>, '
            "`/srv/app/main.py`. and C:\\Users\\me\\f.txt; api.example.com:8443! 1234567")
    got = extract_opaque_identifiers(text)
    assert got == ("DEADBEEF01", "https://x.io/a?b=1", "/srv/app/main.py",
                   "C:\\Users\\me\\f.txt", "api.example.com:8443", "1234567")


def test_opaque_trims_full_width_punctuation() -> None:
    """QA: in sample 04 (Chinese prose) the strict audit demanded the identifier
    ``https://github.com/42naodia/moltbot-config.git`）``: the backtick and the full-width
    bracket were kept, so a summary holding the URL itself was failed."""
    text = ("推送到 https://github.com/42naodia/moltbot-config.git`） 文件 （/srv/app/x.py）"
            " 「C:\\Users\\me\\f.txt」， 端口 api.example.com:8443。")
    assert extract_opaque_identifiers(text) == (
        "https://github.com/42naodia/moltbot-config.git", "/srv/app/x.py",
        "C:\\Users\\me\\f.txt", "api.example.com:8443")


def test_opaque_drops_short_and_caps_at_twelve() -> None:
    assert extract_opaque_identifiers("12345 abc /a") == ()  # 5 digits, no path of 2+ chars
    many = " ".join(f"{i:08x}aa" for i in range(30))
    got = extract_opaque_identifiers(many)
    assert len(got) == OPENCLAW_MAX_IDENTIFIERS == 12
    assert got[0] == "00000000AA"


def test_opaque_matches_leftmost_alternative_like_openclaw() -> None:
    # A relative path is only matched from its first slash; localhost has no dot, so no host:port.
    got = extract_opaque_identifiers("edit src/core/session.ts on localhost:8080")
    assert got == ("/core/session.ts",)


def test_is_pure_hex() -> None:
    assert is_pure_hex("abcdef12")
    assert not is_pure_hex("abcdef1")
    assert not is_pure_hex("abcdefgh")


# --------------------------------------------------------------------------- classes

def _classes(text: str) -> dict[str, list[str]]:
    b = TranscriptBuilder()
    b.user(text)
    out: dict[str, list[str]] = {}
    for ident in extract_identifiers(b.entries):
        out.setdefault(ident.cls, []).append(ident.value)
    return out


def test_each_free_text_class() -> None:
    got = _classes(
        "Open https://example.com/a?b=1), /usr/local/bin/python3 and src/core/agent.ts and "
        "C:\\Users\\me\\x.txt; uuid 019d2308-c368-7ca0-8331-65a7d470352c, commit 83378aad7e74, "
        "serve on localhost:8080 and api.example.com:443, expose 8080/tcp, port 5432; it took "
        "250ms for 3.5 GB (42%), row 1234567, see main.ts:867.")
    assert got["url"] == ["https://example.com/a?b=1"]
    assert got["path"] == ["/usr/local/bin/python3", "src/core/agent.ts", "C:\\Users\\me\\x.txt",
                           "main.ts:867"]
    assert got["uuid"] == ["019d2308-c368-7ca0-8331-65a7d470352c"]
    assert got["hash"] == ["83378aad7e74"]  # the UUID's hex runs are not hashes of their own
    assert got["host"] == ["localhost:8080", "api.example.com:443"]
    assert got["port"] == ["8080/tcp", "5432"]
    assert got["quantity"] == ["250ms", "3.5 GB", "42%"]
    assert got["number"] == ["1234567"]


def test_plain_words_and_decimals_are_not_entities() -> None:
    got = _classes("We discussed the plan and/or alternatives at 3.14159 and version 1.2.")
    assert got == {}


def test_commands_errors_and_entry_links() -> None:
    b = TranscriptBuilder()
    call = b.call("bash", command="cd /srv/app &&   make   test\nsecond line")
    b.assistant("running", call)
    b.result(call, "make: *** [test] Error 2\nTraceback...", is_error=True)
    b.bash("git status --short", "M file.py")
    b.assistant("", stop_reason="error", error_message="429 Too Many Requests: rate limited")
    b.result(b.call("read", path="/srv/app/x.py"), "fine")  # not an error result
    by_value = {i.value: i for i in extract_identifiers(b.entries)}
    commands = [i.value for i in extract_identifiers(b.entries) if i.cls == "command"]
    errors = [i.value for i in extract_identifiers(b.entries) if i.cls == "error"]
    assert commands == ["cd /srv/app && make test", "git status --short"]
    assert errors == ["make: *** [test] Error 2", "429 Too Many Requests: rate limited"]
    assert by_value["cd /srv/app && make test"].entry_ids == (b.entries[0].id,)
    assert by_value["git status --short"].entry_ids == (b.entries[2].id,)
    assert by_value["429 Too Many Requests: rate limited"].entry_ids == (b.entries[3].id,)


def test_entities_are_deduplicated_with_every_entry_they_occur_in() -> None:
    b = TranscriptBuilder()
    first = b.user("look at /srv/app/main.py and DEADBEEF01")
    b.assistant("ok")
    third = b.user("again /srv/app/main.py, deadbeef01")
    found = {i.value: i for i in extract_identifiers(b.entries)}
    assert set(found) == {"/srv/app/main.py", "DEADBEEF01"}
    assert found["/srv/app/main.py"].entry_ids == (first.id, third.id)
    assert found["DEADBEEF01"].entry_ids == (first.id, third.id)


def test_thinking_is_not_extracted_but_tool_arguments_are() -> None:
    b = TranscriptBuilder()
    b.message(Message(role="assistant", content=(ThinkingBlock("secret /tmp/thought/path.txt"),
                                                 TextBlock("hi"))))
    b.assistant("", b.call("write", path="/srv/out/result.json", content="x"))
    text = " ".join(entry_text(e) for e in b.entries)
    assert "/tmp/thought" not in text
    assert [i.value for i in extract_identifiers(b.entries)] == ["/srv/out/result.json"]


# --------------------------------------------------------------------------- matching

def test_summary_contains_rules() -> None:
    assert summary_contains("commit 9F8E7D6C5B4A landed", "9f8e7d6c5b4a")
    assert not summary_contains("commit 9F8E7D6C5B landed", "9f8e7d6c5b4a")
    assert summary_contains("ran `make  test` ok", "make test", "command")
    assert summary_contains("saw MEMORYERROR: out of memory", "MemoryError: out of memory", "error")
    assert not summary_contains("saw memory trouble", "MemoryError: out of memory", "error")
    assert summary_contains("used 3.5GB of RAM", "3.5 GB", "quantity")
    assert not summary_contains("used 13.5 GB of RAM", "3.5 GB", "quantity")
    assert summary_contains("path /a/b/c.py", "/a/b/c.py", "path")
    assert not summary_contains("path /a/b/C.py", "/a/b/c.py", "path")


@given(st.text(alphabet="ab09AF.:/-_ \\\n()\"'<x", max_size=80))
def test_chunked_scan_matches_the_plain_regex(text: str) -> None:
    """Scanning whitespace-free chunks (to avoid quadratic backtracking) changes nothing."""
    from sessionlens.engine.contract.opaque import _OPENCLAW_RE

    expected: dict[str, None] = {}
    for match in _OPENCLAW_RE.finditer(text):
        value = match.group(0).strip().lstrip("(\"'`[{<")
        value = value.rstrip(")]\"'`,;:.!?<>")
        value = value.upper() if is_pure_hex(value) else value
        if len(value) >= 4:
            expected.setdefault(value, None)
    assert extract_opaque_identifiers(text) == tuple(expected)[:OPENCLAW_MAX_IDENTIFIERS]


def test_secrets_and_their_pieces_are_never_required_identifiers() -> None:
    from fixtures.secret_fixtures import PLANTED
    from sessionlens.engine.contract.identifiers import extract_opaque_identifiers

    text = (f"bot {PLANTED['slack_token']} on port 8443, commit 3f9a2c1d7e5b4a6f8e9d0c1b2a3f4e5d6c7b8a9f"
            f" key DEPLOY_KEY={PLANTED['key_assignment']} and {PLANTED['aws_access_key']}")
    found = extract_opaque_identifiers(text)
    assert "3F9A2C1D7E5B4A6F8E9D0C1B2A3F4E5D6C7B8A9F" in found  # a hash is no secret
    assert not [i for i in found if any(i.lower() in v.lower() for v in PLANTED.values())]
