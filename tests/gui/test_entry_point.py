"""The ``sessionlens`` entry point: subcommands stay headless, ``--help`` lists them."""

from __future__ import annotations

import os
import subprocess
import sys

from sessionlens.gui.paths import bundled_sample_path


def test_subcommands_never_import_qt() -> None:
    code = (
        "import sys\n"
        "from sessionlens.gui.__main__ import main\n"
        f"rc = main(['inspect', {str(bundled_sample_path())!r}, '--json'])\n"
        "qt = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync')]\n"
        "print('QT', qt, file=sys.stderr); sys.exit(rc or (3 if qt else 0))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "DISPLAY"})
    assert proc.returncode == 0, proc.stderr
    assert '"format": "openclaw-v3"' in proc.stdout


def test_help_lists_app_options_and_every_subcommand() -> None:
    proc = subprocess.run([sys.executable, "-m", "sessionlens.gui", "--help"],
                          capture_output=True, text=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr
    for word in ("--screenshot", "--basedir", "--self-test", "inspect", "sessions", "plan",
                 "compact", "audit", "export", "chain", "restore"):
        assert word in proc.stdout


def test_global_options_stand_anywhere() -> None:
    from sessionlens.gui.__main__ import split_subcommand

    names = {"plan", "search", "inspect"}
    assert split_subcommand(["--basedir", "X", "search", "q"], names) == (
        "search", ["q", "--basedir", "X"])
    assert split_subcommand(["plan", "f.jsonl", "--json"], names) == (
        "plan", ["f.jsonl", "--json"])
    # an option's value is never taken for a subcommand, nor is a file to open
    assert split_subcommand(["--basedir", "plan", "f.jsonl"], names) == (
        None, ["--basedir", "plan", "f.jsonl"])
    assert split_subcommand(["f.jsonl", "--size", "1280x800"], names)[0] is None


def test_basedir_before_self_test_is_accepted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.run([sys.executable, "-m", "sessionlens.gui", "--basedir", str(tmp_path),
                           "--self-test", "--no-window"], capture_output=True, text=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "unrecognized arguments" not in proc.stderr
    assert proc.stdout.rstrip().endswith("self-test passed")
