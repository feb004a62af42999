"""The held-out secret check of issue 39 (items 2 and 15): twelve kinds of planted
credentials, including ones named only by a field or argument name, one after a space
instead of ``=``, one in prose and an app password of four groups of four letters, appear
in none of what SessionLens shows or sends: the ``--preview``, the request a local fake
provider receives, every export format (summary md/json/html, ``--transcript`` md/html),
``audit`` (which quotes dropped identifiers), trace output, search results, and the bytes of the search index; and the index and the
caches that hold transcript text are no more readable than the transcript (0600 files in
0700 folders)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from fixtures.llm_wire import WireServer
from fixtures.secret_fixtures import HELD_OUT, held_out_secret_session
from sessionlens.engine.cli import main
from sessionlens.engine.load.reader import load_transcript


def _forms(value: str) -> set[str]:
    """The ways a value can sit in output: as is, JSON-escaped, HTML-escaped."""
    return {value, json.dumps(value)[1:-1], value.replace("/", "\\/"),
            value.replace("+", "&#43;").replace("/", "&#x2F;")}


def _leaked(text: str | bytes) -> list[str]:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return sorted(kind for kind, value in HELD_OUT.items() if any(f in text for f in _forms(value)))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """What a command printed (stdout, then stderr)."""
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out + out.err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 0, out.err
    assert _leaked(out.err) == []
    obj: dict[str, object] = json.loads(out.out)
    return obj


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = held_out_secret_session(tmp_path / "mailer.jsonl")
    path.chmod(0o600)
    return path


def test_no_planted_secret_in_preview_or_request(session: Path, wire: WireServer,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    common = ["compact", str(session), "--keep-recent", "60", "--provider", "openai",
              "--base-url", wire.url, "--model", "m"]
    preview = _run(capsys, *common, "--preview", "--json")
    assert wire.seen == [] and json.loads(preview)["requests"]
    assert _leaked(preview) == []
    said = _run(capsys, *common, "--json")
    assert wire.seen
    sent = "\n".join(json.dumps(s.body) for s in wire.seen)
    assert "[REDACTED:" in sent
    assert _leaked(sent) == [] and _leaked(said) == []


def test_no_planted_secret_in_any_export(session: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    written = _json(capsys, "compact", str(session), "--keep-recent", "60", "--write",
                    "successor", "--accept-failed-audit", "--json")
    assert _leaked(json.dumps(written)) == []
    successor = next(p for p in session.parent.iterdir()
                     if p.suffix == ".jsonl" and p != session and ".checkpoint." not in p.name)
    (compaction,) = [e for e in load_transcript(successor).entries if e.type == "compaction"]
    assert _leaked(compaction.summary or "") == []  # the written summary holds none either
    leaks: dict[str, list[str]] = {
        "audit": _leaked(_run(capsys, "audit", str(successor))),
        "audit --json": _leaked(_run(capsys, "audit", str(successor), "--json"))}
    for fmt in ("md", "json", "html"):
        target = out / f"summary.{fmt}"
        _run(capsys, "export", str(successor), "--format", fmt, "-o", str(target))
        leaks[f"summary.{fmt}"] = _leaked(target.read_bytes())
    for fmt in ("md", "html"):
        target = out / f"transcript.{fmt}"
        _run(capsys, "export", str(session), "--format", fmt, "-o", str(target), "--transcript")
        leaks[f"transcript.{fmt}"] = _leaked(target.read_bytes())
    assert leaks == {name: [] for name in leaks}


_QUERIES = ["DEEPSEEK_KEY", "app_password", "client_secret", "password", "aws_secret_access_key",
            "Bearer", "postgres", "OPENAI_API_KEY", "deepseek", "PRIVATE"]


def test_no_planted_secret_in_trace_output(session: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shown = {q: _leaked(_run(capsys, "trace", str(session), q)
                        + _run(capsys, "trace", str(session), q, "--json")) for q in _QUERIES}
    assert shown == {q: [] for q in _QUERIES}


def test_no_planted_secret_in_search_results_or_the_index(
        session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "base"
    shown = {q: _leaked(_run(capsys, "search", q, str(session.parent), "--basedir", str(base))
                        + _run(capsys, "search", q, str(session.parent), "--basedir", str(base),
                               "--json")) for q in _QUERIES}
    assert shown == {q: [] for q in _QUERIES}
    files = [p for p in base.rglob("*") if p.is_file()]
    assert files
    assert {p.relative_to(base).as_posix(): _leaked(p.read_bytes()) for p in files} == {
        p.relative_to(base).as_posix(): [] for p in files}
    for p in [base / "cache", *base.joinpath("cache").rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode & 0o077 == 0, f"{p} is {oct(mode)}"


def test_inspect_reports_and_token_counts_are_owner_only(session: Path, tmp_path: Path) -> None:
    """The other caches that hold (or key) transcript text: an inspect report quotes it, the
    count cache keys counts by text hashes; both 0600 in 0700 folders, also when an older
    version left the folder readable."""
    from sessionlens.engine.cli.report_cache import ReportCache
    from sessionlens.engine.tokens.count_cache import CountCache

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o755)
    cache.chmod(0o755)
    reports = ReportCache(cache, session, {"json": True}, "{}")
    assert reports.key is not None
    reports.put(*_sha_and_size(session), load_transcript(session).format, {"answer": "x"})
    counts = CountCache(cache / "tokens" / "counts.sqlite3")
    counts.close()
    made = [cache, *cache.rglob("*")]
    assert len(made) >= 4, made
    assert {p.relative_to(tmp_path).as_posix(): oct(stat.S_IMODE(p.stat().st_mode) & 0o077)
            for p in made} == {p.relative_to(tmp_path).as_posix(): "0o0" for p in made}


def _sha_and_size(path: Path) -> tuple[str, int]:
    import hashlib

    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), len(data)
