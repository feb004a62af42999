"""``sessionlens compact`` and what leaves the machine: planted secrets against the local
OpenAI and Anthropic wire servers, ``--send-secrets``, ``--preview``, and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.llm_wire import Act, Seen, WireServer, wait_for
from fixtures.secret_fixtures import PLANTED, secret_session
from sessionlens.engine.cli import main
from sessionlens.engine.secrets import find_secrets


def _texts(seen: Seen) -> list[str]:
    body: dict[str, Any] = seen.body
    out = [str(body.get("system") or "")]
    out += [str(m["content"]) for m in body.get("messages") or ()]
    return out


def _sent(wire: WireServer) -> str:
    return "\n".join(t for s in wire.seen for t in _texts(s))


def _compact(tmp_path: Path, wire: WireServer, kind: str, *extra: str,
             capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    path = secret_session(tmp_path / "secrets.jsonl")
    code = main(["compact", str(path), "--keep-recent", "60", "--provider", kind,
                 "--base-url", wire.url, "--model", "m", "--json", *extra])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else {}), out.err


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_no_planted_secret_reaches_the_server(tmp_path: Path, wire: WireServer, kind: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _compact(tmp_path, wire, kind, capsys=capsys)
    assert code == 0 and wire.seen, out
    sent = _sent(wire)
    arrived = sorted(k for k, v in PLANTED.items() if v in sent)
    assert arrived == [], f"{len(arrived)} of {len(PLANTED)} planted secrets were sent"
    for secret_kind in PLANTED:  # each one's placeholder went instead
        assert f"[REDACTED:{secret_kind}#1]" in sent, secret_kind
    assert find_secrets(sent) == ()
    assert "Fix the flaky upload test" not in sent or "tests/test_upload.py" in sent


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_send_secrets_is_an_explicit_opt_out(tmp_path: Path, wire: WireServer, kind: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _compact(tmp_path, wire, kind, "--send-secrets", capsys=capsys)
    assert code == 0 and "--send-secrets" in err and "unredacted" in err
    sent = _sent(wire)
    assert sorted(k for k, v in PLANTED.items() if v in sent) == sorted(PLANTED)
    assert "[REDACTED:" not in sent


def test_preview_prints_exactly_what_is_sent_and_calls_no_model(
        tmp_path: Path, wire: WireServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, preview, _err = _compact(tmp_path, wire, "openai", "--preview", "--write", "successor",
                                   capsys=capsys)
    assert code == 0 and wire.seen == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secrets.jsonl"]
    requests = preview["requests"]
    assert requests and not any(v in r["prompt"] for r in requests for v in PLANTED.values())
    code, _out, _err = _compact(tmp_path, wire, "openai", capsys=capsys)
    assert code == 0
    sent = [tuple(_texts(s)[1:3]) for s in wire.seen]
    # every request the preview showed is, byte for byte, one the server received
    assert len(requests) == len(sent) == 2  # the history chunk and the split turn's prefix
    for r in requests:
        assert (r["system"], r["prompt"]) in sent, r["label"]
    main(["compact", str(tmp_path / "secrets.jsonl"), "--keep-recent", "60", "--preview"])
    text = capsys.readouterr()
    assert f"===== {requests[0]['label']} =====" in text.out
    assert "offline provider sends nothing" in text.err


def test_ctrl_c_during_compact_exits_130_and_writes_nothing(tmp_path: Path,
                                                            wire: WireServer) -> None:
    wire.default = Act("stall", seconds=30.0)
    path = secret_session(tmp_path / "secrets.jsonl")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionlens.engine.cli", "compact", str(path), "--keep-recent",
         "60", "--provider", "openai", "--base-url", wire.url, "--write", "successor"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    try:
        assert wait_for(lambda: bool(wire.seen), timeout=60.0), "the request never arrived"
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
