"""Work-arounds for PySide6 defects that would crash a long session.

The PySide6 / shiboken6 6.12.0 build in use drops references it never took:

* every call of a method that returns nothing (``setObjectName``, ``update``, ``start``...)
  hands back ``None`` without a reference, so each call removes one reference from ``None``;
* ``SignalInstance.emit()`` does the same with ``True``.

After some tens of thousands of calls (a minute of loading progress, dragging the cut line,
a test session) CPython frees the singleton and aborts with "none_dealloc" or
"bool_dealloc". ``apply()`` detects the defects with two probe calls and, only when one is
present, gives ``None``, ``True`` and ``False`` a reference count so large that it can never
reach zero. The composition root and the GUI tests call it before anything else touches
Qt; on a fixed PySide6 it changes nothing.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal

#: References added to each singleton when a defect is present (beyond any session's calls).
PIN = 1 << 40

_applied = False


class _Probe(QObject):
    ping = Signal()


def emit_drops_true_reference() -> bool:
    """True when one emit leaves ``True`` with one reference fewer."""
    probe = _Probe()
    before = sys.getrefcount(True)
    probe.ping.emit()
    return sys.getrefcount(True) < before


def void_call_drops_none_reference() -> bool:
    """True when one call of a method returning nothing leaves ``None`` one reference short."""
    probe = _Probe()
    before = sys.getrefcount(None)
    probe.setObjectName("probe")
    return sys.getrefcount(None) < before


def apply() -> bool:
    """Pin the singletons if PySide6 leaks their references; returns whether it was needed."""
    global _applied
    if _applied:
        return True
    if not (emit_drops_true_reference() or void_call_drops_none_reference()):
        return False
    for singleton in (None, True, False):
        # ob_refcnt is the first field of every CPython object
        ctypes.c_ssize_t.from_address(id(singleton)).value += PIN
    _applied = True
    return True
