"""What a record with a field of the wrong type can raise, and the one place that turns it
into a diagnostic naming file and line.

Adapters check the types of the fields they read (``entry_chain.as_dict`` / ``as_list`` /
``as_str``); this is the net under those checks. Every adapter's per-record loop calls its
record reader through ``read_guarded``, so a field SessionLens did not expect (a ``type``
that is an object, ``toolCalls: 1``) costs that record, never the file or the command
(issue 39 item 13). The load fuzz test (tests/engine/load/test_field_types.py) puts every
kind of JSON value in every field of every format and finds no exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sessionlens.engine.errors import SessionLensError
from sessionlens.engine.model import Diagnostic

__all__ = ["FIELD_ERRORS", "field_problem", "read_guarded"]

#: What reading a wrongly typed field raises (``{} in frozenset``, ``for x in 5``,
#: ``int("x")``, ``d["k"]`` of a missing key, ``None.get``).
FIELD_ERRORS: tuple[type[Exception], ...] = (
    TypeError, AttributeError, KeyError, IndexError, ValueError, OverflowError, RecursionError)


def field_problem(exc: BaseException) -> str:
    """How a diagnostic words a field error."""
    detail = str(exc) or type(exc).__name__
    return f"a field of an unexpected type or value ({type(exc).__name__}: {detail[:120]})"


def read_guarded(diags: list[Diagnostic], spath: str, line: int | None,
                 read: Callable[..., Any], *args: Any) -> bool:
    """Run ``read(*args)`` for one record; a field error becomes an error diagnostic on
    ``line`` and the record is skipped (False). SessionLens's own errors (a cancelled
    load) pass through."""
    try:
        read(*args)
    except FIELD_ERRORS as exc:
        if isinstance(exc, SessionLensError):
            raise
        diags.append(Diagnostic(spath, line, f"{field_problem(exc)}; record skipped"))
        return False
    return True
