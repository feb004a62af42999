"""How subcommands print: one JSON object with ``--json``, readable text otherwise."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any


def _out(text: str) -> None:
    """Write to stdout; a reader that went away (``... | head``) is not an error.

    The rest of the output is sent to /dev/null so the interpreter's final flush does not
    raise again (the recipe of Python's ``signal`` docs for SIGPIPE)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


#: What a command loaded, held until the process ends (see ``cli.run_process``).
_kept: list[Any] = []


def keep_until_exit(obj: Any) -> None:
    """Hold ``obj`` past the command's return, so a process exit does not free it piece by
    piece first. Holds only the latest object: an in-process caller (tests) keeps one."""
    _kept[:] = [obj]


def _blank(value: Any, secrets: Mapping[str, str]) -> Any:
    from sessionlens.engine.transcript_secrets import (
        blanked,  # only for commands that quote secrets
    )

    if isinstance(value, str):
        return blanked(value, secrets)
    if isinstance(value, Mapping):
        return {k: _blank(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_blank(v, secrets) for v in value]
    return value


def emit_json(obj: Any, secrets: Mapping[str, str] | None = None) -> None:
    """Print exactly one JSON object on stdout; with ``secrets`` (``transcript_secrets``)
    every string in it is blanked of them and of what the detector finds."""
    if secrets is not None:
        obj = _blank(obj, secrets)
    _out(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def emit_json_line(obj: Any) -> None:
    """Print one JSON object on one line (a stream of events: JSON Lines)."""
    _out(json.dumps(obj, ensure_ascii=False, default=str) + "\n")


def emit_lines(lines: list[str], secrets: Mapping[str, str] | None = None) -> None:
    """Print lines; with ``secrets``, blanked as ``emit_json`` blanks."""
    text = "\n".join(lines)
    _out((_blank(text, secrets) if secrets is not None else text) + "\n")


#: Warnings this process printed (a run that warned keeps no answer: ``report_cache``).
_warned: list[int] = [0]


def warn(text: str) -> None:
    """A diagnostic for a human: always on stderr, never mixed into --json output."""
    _warned[0] += 1
    print(text, file=sys.stderr)


def warnings_given() -> int:
    """How many times ``warn`` printed in this process."""
    return _warned[0]
