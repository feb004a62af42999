"""Pins in the app: pin / unpin from the timeline, a pin glyph in its rows, the pin list.

The pins live in the engine's sidecar store (``add_pins`` / ``remove_pins``, under the app's
``--state_dir``); this controller only mirrors them for the open session and says where each
stands against the current plan (``place_pins``: carried into the summary, kept, or on
another branch). Reads and writes run on the task pool like every engine call.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QMenu, QWidget

from sessionlens.engine import add_pins, load_pins, place_pins, remove_pins
from sessionlens.gui import shortcuts
from sessionlens.gui.icons import icon
from sessionlens.gui.roles import EntryIdRole
from sessionlens.gui.session_controller import describe_error

if TYPE_CHECKING:
    from sessionlens.engine import PinPlace, PinSet, Transcript
    from sessionlens.gui.session_controller import SessionController
    from sessionlens.gui.tasks import CancelCheck, Progress, TaskRunner
    from sessionlens.gui.transcript.timeline_view import TimelineView


class PinController(QObject):
    """The open session's pins and where they stand; every change goes through the engine."""

    changed = Signal(object)   # tuple[str, ...]: the pinned ids, in pin order
    places_ready = Signal(object)  # tuple[PinPlace, ...] against the current plan
    failed = Signal(str)

    def __init__(self, session: SessionController, tasks: TaskRunner,
                 state_dir: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session, self._tasks, self._state_dir = session, tasks, state_dir
        self.ids: tuple[str, ...] = ()
        self.places: tuple[PinPlace, ...] = ()
        self._for: Transcript | None = None
        #: Bumped by every read or write: only the latest one's answer is shown.
        self._version = 0
        session.loaded.connect(self._on_loaded)
        session.plan_ready.connect(lambda _p: self._place())
        if session.transcript is not None:
            self._on_loaded(session.transcript)

    def is_pinned(self, entry_id: str) -> bool:
        return entry_id in self.ids

    def _on_loaded(self, t: Transcript) -> None:
        state_dir = self._state_dir

        def job(_p: Progress, _c: CancelCheck) -> PinSet:
            return load_pins(t, state_dir)

        self._version += 1
        v = self._version
        self._tasks.run(job, on_done=lambda s: self._set(t, s, v), group="pins-load",
                        on_error=lambda e: self.failed.emit(describe_error(e)))

    def toggle(self, entry_id: str) -> None:
        """Pin ``entry_id``, or unpin it when it is pinned."""
        t = self._session.transcript
        if t is None or not entry_id:
            return
        state_dir, unpin = self._state_dir, entry_id in self.ids

        def job(_p: Progress, _c: CancelCheck) -> PinSet:
            change = remove_pins if unpin else add_pins
            return change(t, [entry_id], state_dir)

        self._version += 1
        v = self._version
        self._tasks.run(job, on_done=lambda s: self._set(t, s, v),
                        on_error=lambda e: self.failed.emit(describe_error(e)))

    def _set(self, t: Transcript, pins: PinSet, version: int) -> None:
        if t is not self._session.transcript or version != self._version:
            return  # another file was opened, or a newer pin change answers for both
        self._for = t
        self.ids = pins.entry_ids
        self.changed.emit(self.ids)
        self._place()

    def _place(self) -> None:
        t, plan, ids = self._session.transcript, self._session.plan, self.ids
        if t is None or t is not self._for:
            return
        summarized: tuple[str, ...] = plan.summarized_entry_ids if plan is not None else ()

        def job(_p: Progress, _c: CancelCheck) -> tuple[PinPlace, ...]:
            return place_pins(t, summarized, ids)

        def done(places: tuple[PinPlace, ...]) -> None:
            if ids == self.ids:
                self.places = places
                self.places_ready.emit(places)

        self._tasks.run(job, on_done=done, group="pins-place")


def place_text(place: PinPlace) -> str:
    """One line for the pin list: where the pin stands and the start of its text."""
    where = {"summary": "before the cut: quoted verbatim in the summary",
             "kept": "after the cut: kept as is",
             "off_path": "not on the active path"}.get(place.where, place.where)
    words = " ".join(place.text.split())
    head = words if len(words) <= 160 else words[:160].rsplit(" ", 1)[0] + " …"
    return f"{place.role or 'entry'} {place.entry_id} — {where}: {head}"


class PinList(QListWidget):
    """The pins of the open session (compaction panel); double-click selects the entry."""

    def __init__(self, pins: PinController, session: SessionController,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pinList")
        self.setAlternatingRowColors(True)
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMaximumHeight(64)  # three short rows: the options above must not scroll at 1280×800
        self._pins = pins
        pins.places_ready.connect(self._fill)
        self.itemDoubleClicked.connect(
            lambda item: session.select(str(item.data(EntryIdRole))))
        self._fill(pins.places)

    def _fill(self, places: tuple[PinPlace, ...]) -> None:
        self.clear()
        if not self._pins.ids:
            empty = QListWidgetItem(self.tr("No pins. Pin an entry in the timeline (right-click,"
                                            " or %1) to keep it through compaction.").replace(
                "%1", shortcuts.sequence(shortcuts.PIN_ENTRY).toString()))
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.addItem(empty)
            return
        for place in places:
            item = QListWidgetItem(icon("mark-pinned"), place_text(place))
            item.setData(EntryIdRole, place.entry_id)
            item.setToolTip(place.text[:2000])
            self.addItem(item)


def install_timeline_pins(view: TimelineView, pins: PinController) -> QAction:
    """Pin / unpin in the timeline: a context menu, a shortcut, the glyph in pinned rows."""
    lst = view.list
    action = QAction(icon("mark-pinned"), view.tr("Pin entry"), view)
    action.setShortcut(shortcuts.sequence(shortcuts.PIN_ENTRY))
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    view.addAction(action)

    def current_id() -> str:
        eid = lst.currentIndex().data(EntryIdRole)
        return str(eid) if eid else ""

    def retitle() -> None:
        pinned = pins.is_pinned(current_id())
        action.setText(view.tr("Unpin entry") if pinned else view.tr("Pin entry"))

    action.triggered.connect(lambda: pins.toggle(current_id()))

    def menu_at(pos: QPoint) -> None:
        index = lst.indexAt(pos)
        if not index.isValid():
            return
        lst.setCurrentIndex(index)
        retitle()
        menu = QMenu(lst)
        menu.addAction(action)
        menu.popup(lst.viewport().mapToGlobal(pos))

    lst.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    lst.customContextMenuRequested.connect(menu_at)
    delegate = lst.itemDelegate()

    def show(ids: tuple[str, ...]) -> None:
        if hasattr(delegate, "pinned"):
            delegate.pinned = frozenset(ids)
        lst.viewport().update()
        retitle()

    pins.changed.connect(show)
    lst.selectionModel().currentChanged.connect(lambda *_: retitle())
    return action
