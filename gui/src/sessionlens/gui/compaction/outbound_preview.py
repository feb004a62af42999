"""The dialog shown before anything goes to a remote provider: exactly what will be sent.

Every secret the engine's scanner finds is listed (by kind and a safe preview, never in
full) and redacted unless the user ticks "keep" for it; the text pane always shows the
prompts as they would leave the machine with the current choices, redaction markers
highlighted. Nothing is sent unless the user presses Send.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from sessionlens.gui.compaction.outbound import OutboundPreview

_MARK = "[REDACTED:"
#: Highlighting more markers than this would only slow a huge preview down.
_MAX_MARKS = 2000


class OutboundPreviewDialog(QDialog):
    """Shows ``preview`` and returns the secrets the user decided to send (``keep_values``)."""

    def __init__(self, preview: OutboundPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle(self.tr("Review what will be sent"))
        self.resize(900, 680)
        where = preview.base_url or self.tr("the provider's default address")
        head = QLabel(self.tr(
            "The text below will be sent to <b>%1</b> (model %2) at %3: %4 request(s), "
            "%5 characters.").replace("%1", preview.provider).replace(
            "%2", preview.model or "-").replace("%3", where).replace(
            "%4", str(len(preview.parts))).replace("%5", f"{preview.chars:,}"))
        head.setWordWrap(True)
        notes = [self.tr("Secrets are redacted unless you tick them to keep them.")]
        if preview.later_stages:
            notes.append(self.tr("Later stages (merging partial summaries) carry the model's "
                                 "own output; the same redaction is applied to them."))
        note = QLabel(" ".join(notes))
        note.setWordWrap(True)

        self.secrets = QListWidget()
        for group in preview.secrets:
            text = self.tr("%1: %2, %3× — tick to send it unredacted").replace(
                "%1", group.kind).replace("%2", group.preview).replace("%3", str(group.count))
            item = QListWidgetItem(text)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            item.setData(Qt.ItemDataRole.UserRole, group.value)
            self.secrets.addItem(item)
        self.secrets.setMaximumHeight(min(130, 8 + 22 * max(1, len(preview.secrets))))
        self.secrets.setVisible(bool(preview.secrets))
        self.secret_label = QLabel(
            self.tr("%1 secret(s) found:").replace("%1", str(len(preview.secrets)))
            if preview.secrets else self.tr("The scanner found no secrets in this text."))
        self.secrets.itemChanged.connect(lambda _i: self._render())

        self.text = QPlainTextEdit(readOnly=True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._spans: list[tuple[int, int]] = []
        self._at = -1
        self.next_secret = QPushButton(self.tr("Show next secret"))
        self.next_secret.clicked.connect(self.show_next_secret)
        self.next_secret.setEnabled(bool(preview.secrets))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.send_button = buttons.addButton(self.tr("Send"),
                                             QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(note)
        row = QHBoxLayout()
        row.addWidget(self.secret_label, 1)
        row.addWidget(self.next_secret)
        layout.addLayout(row)
        layout.addWidget(self.secrets)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self._render()

    def keep_values(self) -> frozenset[str]:
        """The secrets the user ticked to send as they are."""
        out: set[str] = set()
        for row in range(self.secrets.count()):
            item = self.secrets.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                out.add(str(item.data(Qt.ItemDataRole.UserRole)))
        return frozenset(out)

    def sent_text(self) -> str:
        return self.text.toPlainText()

    def show_next_secret(self) -> None:
        """Scroll to the next redaction marker or kept secret (wrapping around)."""
        if not self._spans:
            return
        self._at = (self._at + 1) % len(self._spans)
        start, end = self._spans[self._at]
        cursor = QTextCursor(self.text.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        self.text.setTextCursor(cursor)
        self.text.centerCursor()

    def _render(self) -> None:
        keep = self.keep_values()
        text = self.preview.rendered(keep)
        self.text.setPlainText(text)
        marks: list[QTextEdit.ExtraSelection] = []
        redacted = QTextCharFormat()
        redacted.setBackground(QColor("#fff1b8"))
        redacted.setForeground(QColor("#7a4b00"))
        kept = QTextCharFormat()
        kept.setBackground(QColor("#ffd7d5"))
        spans = [(i, _marker_end(text, i)) for i in _find_all(text, _MARK)]
        spans += [(i, i + len(v)) for v in keep for i in _find_all(text, v)]
        self._spans = sorted(spans)
        self._at = -1
        for start, end in spans[:_MAX_MARKS]:
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.text.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            sel.format = kept if text[start:start + len(_MARK)] != _MARK else redacted
            marks.append(sel)
        self.text.setExtraSelections(marks)


def _find_all(text: str, needle: str) -> list[int]:
    out: list[int] = []
    pos = text.find(needle)
    while pos >= 0 and len(out) < _MAX_MARKS:
        out.append(pos)
        pos = text.find(needle, pos + len(needle))
    return out


def _marker_end(text: str, start: int) -> int:
    end = text.find("]", start)
    return end + 1 if end >= 0 else start + len(_MARK)
