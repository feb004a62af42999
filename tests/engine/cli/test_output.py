"""``cli.output``: how every subcommand prints."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sessionlens.engine.cli.output import emit_json, emit_lines

_BIG = ("from sessionlens.engine.cli.output import emit_json, emit_lines\n"
        "emit_{kind}({payload})\n")


@pytest.mark.parametrize(("kind", "payload"), [
    ("json", "{'rows': ['x' * 100] * 20000}"),
    ("lines", "['y' * 100] * 20000"),
])
def test_a_reader_that_stops_early_gets_no_traceback(kind: str, payload: str) -> None:
    """QA: ``sessionlens audit FILE --json | head`` ended in a BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-c", _BIG.format(kind=kind, payload=payload)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert proc.returncode == 0


def test_emit_json_prints_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    emit_json({"a": [1, 2], "b": "ü"})
    out = capsys.readouterr().out
    assert json.loads(out) == {"a": [1, 2], "b": "ü"} and out.endswith("}\n")
    emit_lines(["one", "two"])
    assert capsys.readouterr().out == "one\ntwo\n"
