"""The command line's entry: which parser a run builds, and when the cyclic GC runs."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine import cli
from sessionlens.engine.cli import main

#: ``run_process`` as the console scripts call it, reporting on stderr whether the
#: collector was on during the command and when the process exits.
_PROCESS = """
import gc
import os
import sys
from sessionlens.engine.cli import inspect_cmd, run_process
real_run = inspect_cmd.run
seen = []
def run(args):
    seen.append(gc.isenabled())
    return real_run(args)
inspect_cmd.run = run
real_exit = os._exit
def exit_after_saying(code):
    print("during:", seen, "at exit:", gc.isenabled(), file=sys.stderr)
    sys.stderr.flush()
    real_exit(code)
os._exit = exit_after_saying
run_process(sys.argv[1:])
"""


def _sample(tmp_path: Path) -> Path:
    """A one-entry session, written with the shared builder."""
    b = TranscriptBuilder(plain_users=True)
    b.user("hello")
    return b.write(tmp_path / "s.jsonl")


def test_a_process_keeps_the_collector_off_to_its_exit(tmp_path: Path) -> None:
    """Switched back on after the command, the collector's first pass would walk every
    object the command made just before the exit frees them all (~0.1 s on 100 MB)."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROCESS, "inspect", "--json", str(_sample(tmp_path)),
         "--basedir", str(tmp_path / "base")],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["entries"]["total"] == 1
    assert "during: [False] at exit: False" in proc.stderr


def test_in_process_the_collector_is_off_during_the_run_and_restored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from sessionlens.engine.cli import inspect_cmd

    seen: list[bool] = []
    real_run = inspect_cmd.run

    def run(args: object) -> int:
        seen.append(gc.isenabled())
        return real_run(args)  # type: ignore[arg-type]

    monkeypatch.setattr(inspect_cmd, "run", run)
    assert gc.isenabled()
    assert main(["inspect", "--json", str(_sample(tmp_path)),
                 "--basedir", str(tmp_path / "base")]) == 0
    assert seen == [False]
    assert gc.isenabled()
    assert json.loads(capsys.readouterr().out)["entries"]["total"] == 1


def test_a_run_builds_only_its_own_command_and_help_shows_all(
        capsys: pytest.CaptureFixture[str]) -> None:
    def commands(parser: object) -> set[str]:
        import argparse

        assert isinstance(parser, argparse.ArgumentParser)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return set(sub.choices)

    assert commands(cli.build_parser("inspect")) == {"inspect"}
    assert commands(cli.build_parser()) == set(cli.SUBCOMMANDS)
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in cli.SUBCOMMANDS)
    with pytest.raises(SystemExit):
        main(["inspekt", "x.jsonl"])  # a mistake is answered by the whole parser
    assert "invalid choice: 'inspekt'" in capsys.readouterr().err
