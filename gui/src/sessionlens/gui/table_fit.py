"""Columns sized to their content, and views never narrower than their header texts.

Issue 19 saw "vera" for "coverage" and ".00%" for "100.00%": a stretched column squeezed by
its neighbours. Here one column stretches, the others fit their content, and the view's
minimum width keeps every header text whole.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTreeView


def fit_columns(view: QTableView | QTreeView, stretch: int = 0) -> None:
    """Column ``stretch`` takes the spare room; the rest size to their content."""
    header = view.horizontalHeader() if isinstance(view, QTableView) else view.header()
    header.setStretchLastSection(False)
    for col in range(header.count()):
        mode = (QHeaderView.ResizeMode.Stretch if col == stretch
                else QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(col, mode)
    keep_headers_whole(view)


def keep_headers_whole(view: QAbstractItemView, *, optional: tuple[int, ...] = ()) -> int:
    """The view's minimum width: every header section's own width plus the frame and the
    vertical scrollbar (call again when the model's columns change). Columns in
    ``optional`` are left out of the minimum (the caller hides them when there is no room);
    returns the width all columns need."""
    header = view.horizontalHeader() if isinstance(view, QTableView) else (
        view.header() if isinstance(view, QTreeView) else None)
    if header is None or header.model() is None:
        return 0
    frame = 2 * view.frameWidth() + view.verticalScrollBar().sizeHint().width() + 4
    if isinstance(view, QTableView) and view.verticalHeader().isVisible():
        frame += view.verticalHeader().width()
    sizes = {c: header.sectionSizeHint(c) for c in range(header.count())}
    view.setMinimumWidth(frame + sum(v for c, v in sizes.items() if c not in optional))
    return frame + sum(sizes.values())
