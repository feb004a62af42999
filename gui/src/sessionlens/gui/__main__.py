"""Entry point of ``sessionlens``: headless subcommands, or the desktop app.

Subcommands (``inspect``, ``plan``, ...) are dispatched to the engine's CLI before anything
imports Qt, so they run on machines with no display and stay fast. ``--self-test`` runs
the whole pipeline on the bundled sample and exits non-zero if any step fails. Global
options may stand anywhere: ``sessionlens --basedir X --self-test`` and
``sessionlens --basedir X search QUERY`` work as written.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Sequence

#: The app's options that take a value (so their value is never mistaken for a subcommand).
_VALUE_OPTIONS = frozenset({"--basedir", "--compaction", "--query", "--screenshot", "--size",
                            "--theme", "--view"})


def split_subcommand(args: Sequence[str], names: frozenset[str] | set[str]) -> tuple[
        str | None, list[str]]:
    """The first positional word if it names a subcommand, and the remaining arguments
    (options that stood before it moved after it); ``(None, args)`` otherwise."""
    skip = False
    for i, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = word in _VALUE_OPTIONS
            continue
        if word in names:
            return word, [*args[i + 1:], *args[:i]]
        return None, list(args)
    return None, list(args)


def _basedir(args: Sequence[str]) -> str | None:
    for i, word in enumerate(args):
        if word == "--basedir" and i + 1 < len(args):
            return args[i + 1]
        if word.startswith("--basedir="):
            return word.partition("=")[2]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    # importing the engine builds thousands of objects and no garbage: collector passes over
    # them cost every call ~40 ms (a fifth of the import)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        from sessionlens.engine.cli import SUBCOMMANDS
    finally:
        if gc_was_on:
            gc.enable()

    sub, rest = split_subcommand(args, set(SUBCOMMANDS))
    if sub is not None:
        from sessionlens.engine.cli import main as cli_main
        from sessionlens.engine.cli import run_process

        if argv is None:  # the process's own entry point: exit without teardown
            run_process([sub, *rest])
        return cli_main([sub, *rest])
    if "--self-test" in args:
        from .selftest import run_self_test

        return run_self_test(with_window="--no-window" not in args, basedir=_basedir(args))
    from .app import run_app

    if "-h" in args or "--help" in args:
        try:
            return run_app(args)  # argparse prints the app's own options and exits
        finally:
            _print_subcommands()
    return run_app(args)


def _print_subcommands() -> None:
    """The headless half of ``sessionlens --help``: self-test and every subcommand."""
    from sessionlens.engine.cli import describe_subcommands

    lines = ["", "other modes:",
             "  --self-test           run the whole pipeline on the bundled sample and exit 0 if it works",
             "                        (with --basedir DIR the window step keeps its data under DIR)",
             "", "subcommands (headless; each has --help and --json):"]
    lines += [f"  {name:<21} {text}" for name, text in describe_subcommands()]
    with contextlib.suppress(BrokenPipeError):  # `sessionlens --help | head`
        print("\n".join(lines))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
