"""Custom item-data roles shared by the models and their delegates."""

from __future__ import annotations

from PySide6.QtCore import Qt

_BASE = int(Qt.ItemDataRole.UserRole)

#: The engine object (or prepared row) behind an index.
ItemRole = _BASE + 1
#: The entry id of a timeline row.
EntryIdRole = _BASE + 2
#: Icon key (see icons.py) for the row's role or type.
IconKeyRole = _BASE + 3
#: Bit flags from ``timeline_rows.Mark``.
MarksRole = _BASE + 4
#: Tree depth (0 in list mode).
DepthRole = _BASE + 5
#: Exact token count of the entry (None until counted).
TokensRole = _BASE + 6
#: Secondary line (time, tool name, model).
DetailRole = _BASE + 7
#: Sort key for numeric/date columns.
SortRole = _BASE + 8
#: Text a filter box matches against (id, path, agent, project).
FilterRole = _BASE + 9
