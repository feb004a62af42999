"""Argument types the subcommands share, so a bad number is refused by argparse itself.

A negative ``--keep-recent`` or a window of ``-1`` used to flow into the planner and print
"context 180,820 of -1 tokens, threshold -16,385"; argparse now says what is wrong instead.
"""

from __future__ import annotations

import argparse

from sessionlens.engine.plan.trigger_settings import parse_byte_size

__all__ = ["byte_size", "non_negative_int", "positive_int"]


def _int(text: str) -> int:
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def non_negative_int(text: str) -> int:
    """A token count: 0 or more (``20000``, ``20_000`` and ``20,000`` all read the same)."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give 0 or more")
    return value


def positive_int(text: str) -> int:
    """A context window: more than 0."""
    value = _int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value} is not a window size; give more than 0")
    return value


def byte_size(text: str) -> int:
    """A file size: bytes, or OpenClaw's size strings (``20mb``, ``512kb``); more than 0."""
    try:
        value = parse_byte_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; give more than 0")
    return value
