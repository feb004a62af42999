"""The reading processes' collector policy: off while a file is planned, a pass between files."""

from __future__ import annotations

import subprocess
import sys

from fixtures.search_sessions import Machine

#: A reading process's life in one interpreter: started, then two files planned; it reports
#: whether the collector is on, and whether a reference cycle left before the second file
#: was collected by the time that file's plan came back.
_READER = """
import gc
import sys
import weakref
from sessionlens.engine.search import plan_pool
from sessionlens.engine.search.search_settings import SearchSettings
plan_pool._init_worker(SearchSettings())
first = plan_pool._plan_in_worker(sys.argv[1], None)
class Node:
    other: object = None
a, b = Node(), Node()
a.other, b.other = b, a
gone = weakref.ref(a)
del a, b
second = plan_pool._plan_in_worker(sys.argv[2], None)
print(gc.isenabled(), gone() is None, len(first.chunks) > 0, len(second.chunks) > 0)
"""


def test_a_reader_plans_with_the_collector_off_and_collects_between_files(
        machine: Machine) -> None:
    one, two = (str(machine.facts[k][0]) for k in ("db", "error"))
    proc = subprocess.run([sys.executable, "-c", _READER, one, two], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True", "True", "True"]
