"""Headless command line: ``sessionlens <subcommand> ...`` (never imports Qt).

Each subcommand lives in its own module with ``register(subparsers)``, which adds a parser
whose default ``func`` takes the parsed args and returns an exit code. With ``--json`` a
command prints exactly one JSON object on stdout; errors go to stderr with a non-zero exit.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from sessionlens.engine._io.fork_policy import allow_fork
from sessionlens.engine.cli.output import emit_json, emit_lines
from sessionlens.engine.errors import NothingToCompact, SessionLensError

#: Subcommand name -> module under ``sessionlens.engine.cli``.
SUBCOMMANDS: dict[str, str] = {
    "inspect": "inspect_cmd",
    "sessions": "sessions_cmd",
    "plan": "plan_cmd",
    "compact": "compact_cmd",
    "audit": "audit_cmd",
    "export": "export_cmd",
    "chain": "chain_cmd",
    "restore": "restore_cmd",
    "trace": "trace_cmd",
    "search": "search_cmd",
    "mcp": "mcp_cmd",
    "watch": "watch_cmd",
    "compact-for-agent": "agent_cmd",
    "hook": "agent_cmd",
    "journal": "journal_cmd",
    "integrate": "integrate_cmd",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that subcommand (a run imports the
    modules of the one command it runs, not of all ten: see the engine's lazy face)."""
    parser = argparse.ArgumentParser(
        prog="sessionlens",
        description="Inspect, plan, compact, audit and export agent session transcripts.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # a module may hold more than one subcommand (agent_cmd: compact-for-agent and hook)
    modules = dict.fromkeys(m for n, m in SUBCOMMANDS.items() if only is None or n == only)
    for module in modules:
        importlib.import_module(f"{__name__}.{module}").register(sub)
    return parser


def describe_subcommands() -> list[tuple[str, str]]:
    """(name, one-line help) of every subcommand, for the app's ``--help``."""
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    return [(action.dest, action.help or "") for action in sub._get_subactions()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; returns the process exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    # A run makes next to no cyclic garbage, but the collector would walk every object of a
    # loaded 100 MB transcript, again and again (0.3 s per inspect), and every object the
    # command's imports make: leave it off meanwhile.
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        return _run(words)
    finally:
        if gc_was_on:
            gc.enable()


def _run(words: list[str]) -> int:
    """Parse ``words`` and run the command, turning its expected failures into exit codes."""
    # a known command first: only its parser (help and mistakes get the whole one)
    parser = build_parser(words[0] if words and words[0] in SUBCOMMANDS else None)
    args = parser.parse_args(words)
    try:
        code: int = args.func(args)
    except NothingToCompact as exc:  # a normal answer, on stdout, exit 0
        if getattr(args, "json", False):
            emit_json({"nothing_to_compact": True, "should_compact": False, "reason": str(exc),
                       "warnings": list(exc.warnings)})
        else:
            emit_lines([f"nothing to compact: {exc}", *(f"warning: {w}" for w in exc.warnings)])
        return 0
    except SessionLensError as exc:
        print(f"sessionlens {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"sessionlens {args.command}: interrupted", file=sys.stderr)
        return 130
    return code


def run_process(argv: Sequence[str] | None = None) -> NoReturn:
    """A subcommand as a whole process: ``main``, flush, then exit without tearing down.

    The console scripts use this, never code that calls ``main`` in-process. Freeing a
    loaded 100 MB transcript object by object takes ~0.1 s the OS does for free at exit;
    commands that hold one pass it to ``output.keep_until_exit``. Being a process of its
    own, it may also fork work onto the other core (``_io.fork_policy``).
    """
    allow_fork()
    # The collector stays off to the end: switched back on, its first pass would walk every
    # object the command made (~0.1 s after a 100 MB inspect) just before the exit frees them.
    gc.disable()
    code = main(argv)
    with contextlib.suppress(BrokenPipeError, ValueError):  # a reader gone, a closed stream
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run_process()
