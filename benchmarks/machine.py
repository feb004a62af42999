"""One line naming the machine a benchmark ran on, printed first by every benchmark.

Stops run on machines of one kind but not one processor: the same code built the search
index at 12.7-14.0 MB/s on one and 28 MB/s on another. Figures from different stops compare
only when the processor, the core count and the load are printed beside them.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

__all__ = ["describe_machine"]


def _cpu_model() -> str:
    """The processor's name, with its family and model numbers where Linux gives them."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return platform.processor() or platform.machine() or "unknown processor"
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() not in fields:
            fields[key.strip()] = value.strip()
        elif not line.strip() and fields:
            break  # the first processor's block is enough
    name = fields.get("model name") or platform.processor() or platform.machine()
    family, model = fields.get("cpu family"), fields.get("model")
    return f"{name} (family {family}, model {model})" if family and model else name


def describe_machine() -> str:
    """``processor, N cores, load average a b c, python X.Y.Z``."""
    load = (" ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg")
            else "unknown")
    return (f"{_cpu_model()}, {os.cpu_count()} cores, load average {load}, "
            f"python {sys.version.split()[0]}")
