"""``sessionlens --self-test`` runs the real pipeline and fails loudly when a step breaks."""

from __future__ import annotations

import subprocess
import sys

from sessionlens.gui.paths import bundled_sample_path
from sessionlens.gui.selftest import run_self_test


def test_bundled_sample_is_shipped_in_the_package() -> None:
    path = bundled_sample_path()
    assert path.is_file() and path.stat().st_size > 10_000
    assert path.read_text(encoding="utf-8").startswith('{"type":"session"')


def test_self_test_passes_headless(capsys) -> None:  # type: ignore[no-untyped-def]
    assert run_self_test(with_window=False) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out
    for step in ("load bundled sample", "plan compaction", "offline compaction + audit",
                 "export md", "export json", "export html"):
        assert f"ok   {step}" in out
    assert out.rstrip().endswith("self-test passed")


def test_self_test_fails_when_the_sample_is_missing(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import sessionlens.gui.selftest as st

    monkeypatch.setattr(st, "bundled_sample_path", lambda: tmp_path / "gone.jsonl")
    assert run_self_test(with_window=False) == 1
    out = capsys.readouterr().out
    assert "FAIL load bundled sample" in out and "self-test FAILED" in out


def test_self_test_from_the_command_line_renders_the_window() -> None:
    proc = subprocess.run([sys.executable, "-m", "sessionlens.gui", "--self-test"],
                          capture_output=True, text=True, timeout=240,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok   render main window" in proc.stdout
