"""How subcommands print: one JSON object with ``--json``, readable text otherwise."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit_json(obj: Any) -> None:
    """Print exactly one JSON object on stdout."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str))
    sys.stdout.write("\n")


def emit_lines(lines: list[str]) -> None:
    sys.stdout.write("\n".join(lines) + "\n")


def warn(text: str) -> None:
    """A diagnostic for a human: always on stderr, never mixed into --json output."""
    print(text, file=sys.stderr)
