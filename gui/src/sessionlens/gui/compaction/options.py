"""The left half of the compaction panel: focus instructions and the run's options.

Turns the widgets into one ``RunOptions`` (``options()``); remembers instructions and the last
choices through ``CompactionPrefs``. Keep-recent and reserve are not the panel's own: they
show the session's resolved settings (``show_sizes``), and ``sizes_changed`` fires (debounced)
when the user edits them, so the session re-plans once with the new values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import IDENTIFIER_POLICIES, TEMPLATES
from sessionlens.gui.compaction.run import RunOptions

if TYPE_CHECKING:
    from sessionlens.engine import CompactionSettings, ProviderProfile, ResolvedSettings
    from sessionlens.gui.compaction.prefs import CompactionPrefs

_REPLAN_MS = 300


class CompactionOptionsForm(QWidget):
    """Focus instructions (with history), template, provider/model, policy, sizes."""

    sizes_changed = Signal(int, int)  # keep recent, reserve

    def __init__(self, prefs: CompactionPrefs, profiles: Callable[[], list[ProviderProfile]],
                 defaults: CompactionSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._prefs, self._profiles = prefs, profiles
        self._debounce = QTimer(self, singleShot=True, interval=_REPLAN_MS)
        self._debounce.timeout.connect(self._emit_sizes)
        self.history = QComboBox()
        self.history.setPlaceholderText(self.tr("Earlier instructions…"))
        self.history.activated.connect(self._use_history)
        self.instructions = QPlainTextEdit()
        self.instructions.setPlaceholderText(self.tr(
            "What must the summary keep? e.g. \"Keep every file path and the deploy commands; "
            "the user's constraint about the staging DB matters most.\""))
        self.instructions.setMaximumHeight(80)
        self.template = QComboBox()
        self.template.addItems(list(TEMPLATES))
        self.provider = QComboBox()
        self.model = QLineEdit()
        self.provider.currentIndexChanged.connect(self._on_profile)
        self.policy = QComboBox()
        self.policy.addItems(list(IDENTIFIER_POLICIES))
        self.custom = QPlainTextEdit()
        self.custom.setPlaceholderText(self.tr("One identifier per line (custom policy)"))
        self.custom.setMaximumHeight(52)
        self.policy.currentTextChanged.connect(lambda p: self.custom.setEnabled(p == "custom"))
        self.keep_recent = QSpinBox(minimum=0, maximum=2_000_000, singleStep=1000,
                                    suffix=self.tr(" tokens"))
        self.reserve = QSpinBox(minimum=0, maximum=2_000_000, singleStep=1024,
                                suffix=self.tr(" tokens"))
        self.keep_recent.setToolTip(self.tr("0 = a hard boundary: nothing before the "
                                            "compaction is kept"))
        self.quality_retries = QSpinBox(minimum=0, maximum=3)
        self.quality_retries.setToolTip(self.tr("Regenerate up to this many times when the "
                                                "audit fails (the best attempt is kept)"))
        self.quality_retries.setValue(prefs.int_value("quality_retries", 0))  # as compact
        self._show(defaults.keep_recent_tokens, defaults.effective_reserve)
        self.template.setCurrentText(prefs.value("template", "structured"))
        self.policy.setCurrentText(prefs.value("policy", "strict"))
        self.custom.setEnabled(self.policy.currentText() == "custom")
        for spin in (self.keep_recent, self.reserve):
            spin.valueChanged.connect(lambda _v: self._debounce.start())

        focus = QGroupBox(self.tr("Focus instructions"))
        fl = QVBoxLayout(focus)
        fl.addWidget(self.history)
        fl.addWidget(self.instructions)
        opts = QGroupBox(self.tr("Options"))
        form = QFormLayout(opts)
        form.addRow(self.tr("Template"), self.template)
        form.addRow(self.tr("Provider"), self.provider)
        form.addRow(self.tr("Model"), self.model)
        form.addRow(self.tr("Identifier policy"), self.policy)
        form.addRow(self.tr("Custom identifiers"), self.custom)
        sizes = QHBoxLayout()
        sizes.addWidget(self.keep_recent, 1)
        sizes.addWidget(QLabel(self.tr("reserve")))
        sizes.addWidget(self.reserve, 1)
        form.addRow(self.tr("Keep recent"), sizes)
        form.addRow(self.tr("Quality retries"), self.quality_retries)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(focus)
        layout.addWidget(opts)
        self.reload_history()
        self.reload_profiles()

    def _emit_sizes(self) -> None:
        self.sizes_changed.emit(self.keep_recent.value(), self.reserve.value())

    def show_sizes(self, resolved: ResolvedSettings) -> None:
        """Show the keep-recent and the reserve in force, as the engine resolved them (the
        reserve raised to its floor: the number the run uses), each with its source in the
        tooltip. No re-plan: they are already in force."""
        self._show(int(resolved.keep_recent_tokens.value), int(resolved.reserve_tokens.value),
                   resolved.keep_recent_tokens.source, resolved.reserve_tokens.source)

    def _show(self, keep: int, reserve: int, keep_source: str = "", reserve_source: str = ""
              ) -> None:
        for spin, value, source in ((self.keep_recent, keep, keep_source),
                                    (self.reserve, reserve, reserve_source)):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
            if source:
                spin.setToolTip(self.tr("In force: %1 (%2)").replace("%1", f"{value:,}")
                                .replace("%2", source))

    @property
    def replan_pending(self) -> bool:
        """True while a keep-recent/reserve change waits for its debounced re-plan."""
        return self._debounce.isActive()

    def reload_profiles(self) -> None:
        self.provider.blockSignals(True)
        self.provider.clear()
        for p in self._profiles():
            self.provider.addItem(f"{p.name} ({p.kind})", p)
        self.provider.blockSignals(False)
        wanted = self._prefs.value("profile", "offline")
        idx = next((i for i in range(self.provider.count())
                    if self.provider.itemData(i).name == wanted), 0)
        self.provider.setCurrentIndex(idx)
        self._on_profile(idx)

    def reload_history(self) -> None:
        self.history.clear()
        for text in self._prefs.history():
            self.history.addItem(text.replace("\n", " ")[:90], text)
        self.history.setCurrentIndex(-1)
        self.history.setEnabled(self.history.count() > 0)

    def options(self) -> RunOptions:
        """The current choices (a model typed over the profile's replaces it for this run)."""
        profile = self.provider.currentData()
        model = self.model.text().strip()
        if model and model != profile.model:
            profile = dataclasses.replace(profile, model=model)
        return RunOptions(profile, self.instructions.toPlainText().strip(),
                          self.template.currentText(),
                          IDENTIFIER_POLICIES[max(0, self.policy.currentIndex())],
                          self.custom.toPlainText(), self.quality_retries.value())

    def remember(self, opts: RunOptions) -> None:
        """Keep the instructions in the history and the choices for next time."""
        self._prefs.remember(opts.instructions)
        for key, value in (("template", opts.template), ("policy", opts.identifier_policy),
                           ("profile", opts.profile.name),
                           ("quality_retries", opts.quality_retries)):
            self._prefs.set_value(key, value)
        self.reload_history()

    def _on_profile(self, index: int) -> None:
        profile = self.provider.itemData(index)
        if profile is not None:
            self.model.setText(profile.model)

    def _use_history(self, index: int) -> None:
        text = self.history.itemData(index)
        if text:
            self.instructions.setPlainText(str(text))
