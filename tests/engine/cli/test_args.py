"""``cli.args``: numbers on the command line are checked before anything runs."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sessionlens.engine.cli import main
from sessionlens.engine.cli.args import non_negative_int, positive_int


def test_number_types() -> None:
    assert non_negative_int("0") == 0 and non_negative_int("20_000") == 20000
    assert non_negative_int("20,000") == 20000 and positive_int("1") == 1
    for bad in ("-1", "x", "1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            non_negative_int(bad)
    with pytest.raises(argparse.ArgumentTypeError):
        positive_int("0")


@pytest.mark.parametrize("argv", [
    ["plan", "--keep-recent", "-5"], ["plan", "--context-window", "-1"],
    ["plan", "--context-window", "0"], ["plan", "--reserve", "-1"],
    ["plan", "--reserve-floor", "-3"], ["compact", "--keep-recent", "-1"],
    ["compact", "--context-window", "0"],
])
def test_negative_or_zero_numbers_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              argv: list[str]) -> None:
    """QA: ``plan --context-window -1`` printed "context 180,820 of -1 tokens, threshold
    -16,385"; ``--keep-recent -5`` planned as if it were 0."""
    target = tmp_path / "never-read.jsonl"
    with pytest.raises(SystemExit) as stop:
        main([argv[0], str(target), *argv[1:]])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert argv[1] in err and "Traceback" not in err
