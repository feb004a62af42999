"""``sessionlens mcp``: its parser imports neither the SDK nor the recall package, and
``--print-config`` prints the registration without serving."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sessionlens.engine.cli import main


def test_parsing_mcp_imports_no_sdk() -> None:
    code = ("import sys, sessionlens.engine.cli as cli\n"
            "cli.build_parser('mcp').parse_args(['mcp', '--root', '.'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic')"
            " or m.startswith('sessionlens.engine.recall')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert ast.literal_eval(proc.stdout.strip()) == []


def test_print_config_for_codex(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert main(["mcp", "--root", str(tmp_path), "--print-config", "codex"]) == 0
    out = capsys.readouterr().out
    snippet = out.split("\n\n")[0].split("\n", 1)[1]
    args = tomllib.loads(snippet)["mcp_servers"]["sessionlens"]["args"]
    assert args == ["-m", "sessionlens.engine.cli", "mcp", "--root", str(tmp_path.resolve())]
    assert "codex mcp add sessionlens -- " in out
    monkeypatch.setenv("PYTHONPATH", "/checkout/engine/src")  # a source checkout's engine
    assert main(["mcp", "--print-config", "claude-code"]) == 0
    out = capsys.readouterr().out
    assert '"PYTHONPATH": "/checkout/engine/src"' in out
    assert "claude mcp add --scope user --env PYTHONPATH=/checkout/engine/src sessionlens" in out


def test_a_missing_root_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--root", str(tmp_path / "nope")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
