"""Entry point of ``sessionlens``: headless subcommands, or the desktop app.

Subcommands (``inspect``, ``plan``, ...) are dispatched to the engine's CLI before anything
imports Qt, so they run on machines with no display and stay fast. ``--self-test`` runs
the whole pipeline on the bundled sample and exits non-zero if any step fails.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence


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

    if args and args[0] in SUBCOMMANDS:
        from sessionlens.engine.cli import main as cli_main
        from sessionlens.engine.cli import run_process

        if argv is None:  # the process's own entry point: exit without teardown
            run_process(args)
        return cli_main(args)
    if args and args[0] == "--self-test":
        from .selftest import run_self_test

        return run_self_test(with_window="--no-window" not in args)
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
             "", "subcommands (headless; each has --help and --json):"]
    lines += [f"  {name:<21} {text}" for name, text in describe_subcommands()]
    print("\n".join(lines))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
