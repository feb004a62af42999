"""Charts repaint in the next ordinary window paint instead of at once, once per burst.

By default a QGraphicsScene hands each batch of changed items straight to its views and
makes the window paint right then; painting a pyqtgraph plot changes items again (axes
re-measured, the view box's transform), so one new series set off three back-to-back
window paints: 70-130 ms in which the event loop did nothing else while a 100 MB session
opened. Once anything listens to the scene's ``changed`` signal, Qt routes its updates
through that signal instead, and the view merely marks itself for the next paint.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGraphicsView


def coalesce_repaints(view: QGraphicsView) -> None:
    """Route ``view``'s scene updates through ``changed`` (see the module's docstring)."""
    view.scene().changed.connect(_ignore)


def _ignore(_rects: object) -> None:
    """The listener whose presence changes Qt's update path; it has nothing to do."""
