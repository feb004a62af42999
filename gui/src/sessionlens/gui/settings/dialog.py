"""Settings: compaction numbers, tokenizer, theme, and provider profiles.

Profiles hold the *name* of the environment variable with the key; the dialog never asks
for a key unless the OS keyring is available, and then it goes straight to the keyring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sessionlens.engine import PROVIDER_KINDS, Overrides
from sessionlens.gui.prefs import ENCODINGS, THEMES, Theme
from sessionlens.gui.settings.profiles import keyring_available, store_key_in_keyring

if TYPE_CHECKING:
    from sessionlens.engine import CompactionSettings, ProviderProfile, ResolvedSettings



def _spin(lo: int, hi: int, value: int, special: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setSingleStep(1024)
    box.setGroupSeparatorShown(True)
    if special:
        box.setSpecialValueText(special)
    box.setValue(value)
    return box


class SettingsDialog(QDialog):
    """Edits copies of the settings; the caller applies ``result_*`` after accept."""

    def __init__(self, overrides: Overrides, settings: CompactionSettings, encoding: str,
                 theme: Theme, profiles: list[ProviderProfile],
                 parent: QWidget | None = None, *,
                 resolved: ResolvedSettings | None = None,
                 on_integrations: Callable[[], None] | None = None) -> None:
        """``overrides`` are the user's own values; ``settings`` the resolved ones shown for
        what the user has not set. A value left as shown stays unset (it keeps following the
        config and the model), so its source is not silently turned into "app settings".
        The reserve shown is the one in force (``resolved``: raised to its floor), the number
        the run uses, with its source beside it."""
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self._overrides = overrides
        self._profiles = list(profiles)
        reserve_in_force = (int(resolved.reserve_tokens.value) if resolved is not None
                            else settings.effective_reserve)
        self._shown = (overrides.context_window or 0, reserve_in_force,
                       overrides.keep_recent_tokens if overrides.keep_recent_tokens is not None
                       else settings.keep_recent_tokens)
        self.window_box = _spin(0, 10_000_000, self._shown[0], self.tr("from the model"))
        self.reserve_box = _spin(0, 1_000_000, self._shown[1])
        self.reserve_source = QLabel(resolved.reserve_tokens.source if resolved is not None
                                     else self.tr("reserveTokens %1, raised to the floor %2")
                                     .replace("%1", f"{settings.reserve_tokens:,}")
                                     .replace("%2", f"{settings.reserve_tokens_floor:,}"))
        self.reserve_source.setWordWrap(True)
        self.keep_box = _spin(0, 1_000_000, self._shown[2])
        self.keep_box.setToolTip(self.tr("0 = a hard boundary: nothing before the compaction "
                                         "is kept"))
        self.encoding_box = QComboBox()
        self.encoding_box.addItems(list(ENCODINGS))
        self.encoding_box.setCurrentText(encoding)
        self.theme_box = QComboBox()
        for t in THEMES:
            self.theme_box.addItem(self.tr(t.capitalize()), t)
        self.theme_box.setCurrentIndex(THEMES.index(theme))
        form = QFormLayout()
        form.addRow(self.tr("Context window"), self.window_box)
        form.addRow(self.tr("Reserve tokens (in force)"), self.reserve_box)
        form.addRow("", self.reserve_source)
        form.addRow(self.tr("Keep recent tokens"), self.keep_box)
        form.addRow(self.tr("Tokenizer"), self.encoding_box)
        form.addRow(self.tr("Theme"), self.theme_box)

        self.profile_list = QListWidget()
        self.p_name, self.p_url, self.p_model, self.p_env = QLineEdit(), QLineEdit(), QLineEdit(), QLineEdit()
        self.p_env.setPlaceholderText(self.tr("e.g. OPENAI_API_KEY (the variable's name, not the key)"))
        self.p_kind = QComboBox()
        self.p_kind.addItems(list(PROVIDER_KINDS))
        pform = QFormLayout()
        pform.addRow(self.tr("Name"), self.p_name)
        pform.addRow(self.tr("Kind"), self.p_kind)
        pform.addRow(self.tr("Base URL"), self.p_url)
        pform.addRow(self.tr("Model"), self.p_model)
        pform.addRow(self.tr("Key env var"), self.p_env)
        add, remove = QPushButton(self.tr("Add / update")), QPushButton(self.tr("Remove"))
        self.keyring_button = QPushButton(self.tr("Store key in OS keyring…"))
        self.keyring_button.setVisible(keyring_available())
        buttons = QHBoxLayout()
        for b in (add, remove, self.keyring_button):
            buttons.addWidget(b)
        pbox = QGroupBox(self.tr("Provider profiles"))
        pl = QVBoxLayout(pbox)
        pl.addWidget(self.profile_list)
        pl.addLayout(pform)
        pl.addLayout(buttons)
        ok = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(pbox)
        if on_integrations is not None:  # Settings ▸ the agents' own compactions
            self.integrations_button = QPushButton(self.tr("Agents' own compactions…"))
            self.integrations_button.setToolTip(self.tr(
                "Put SessionLens in pi's, OpenClaw's, Claude Code's or Codex's automatic "
                "compactions: preview every config edit first"))
            self.integrations_button.clicked.connect(on_integrations)
            lay.addWidget(self.integrations_button)
        lay.addWidget(ok)
        ok.accepted.connect(self.accept)
        ok.rejected.connect(self.reject)
        add.clicked.connect(self._add_profile)
        remove.clicked.connect(self._remove_profile)
        self.keyring_button.clicked.connect(self._store_key)
        self.profile_list.currentRowChanged.connect(self._show_profile)
        self._refresh_profiles()

    def _refresh_profiles(self) -> None:
        self.profile_list.clear()
        for p in self._profiles:
            self.profile_list.addItem(f"{p.name}  ({p.kind}{', ' + p.model if p.model else ''})")

    def _show_profile(self, row: int) -> None:
        if 0 <= row < len(self._profiles):
            p = self._profiles[row]
            self.p_name.setText(p.name)
            self.p_kind.setCurrentText(p.kind)
            self.p_url.setText(p.base_url)
            self.p_model.setText(p.model)
            self.p_env.setText(p.key_env or "")

    def _add_profile(self) -> None:
        name = self.p_name.text().strip()
        if not name or name == "offline":
            return
        from sessionlens.engine import ProviderProfile

        prof = ProviderProfile(name=name, kind=PROVIDER_KINDS[self.p_kind.currentIndex()],
                               base_url=self.p_url.text().strip(), model=self.p_model.text().strip(),
                               key_env=self.p_env.text().strip() or None)
        self._profiles = [p for p in self._profiles if p.name != name] + [prof]
        self._refresh_profiles()

    def _remove_profile(self) -> None:
        row = self.profile_list.currentRow()
        if 0 <= row < len(self._profiles) and self._profiles[row].name != "offline":
            del self._profiles[row]
            self._refresh_profiles()

    def _store_key(self) -> None:
        name = self.p_name.text().strip()
        if not name:
            return
        key, ok = QInputDialog.getText(self, self.tr("API key"),
                                       self.tr("Key for %1 (stored only in the OS keyring)").replace("%1", name),
                                       QLineEdit.EchoMode.Password)
        if ok and key:
            store_key_in_keyring(name, key)

    # results ---------------------------------------------------------------------------------
    def result_overrides(self) -> Overrides:
        """The user's values: unchanged boxes keep what the user had set (or nothing)."""
        o = self._overrides

        def pick(box: QSpinBox, shown: int, before: int | None) -> int | None:
            return box.value() if box.value() != shown else before

        return Overrides(context_window=self.window_box.value() or None,
                         reserve_tokens=pick(self.reserve_box, self._shown[1], o.reserve_tokens),
                         keep_recent_tokens=pick(self.keep_box, self._shown[2],
                                                 o.keep_recent_tokens),
                         origin="app settings")

    def result_encoding(self) -> str:
        return self.encoding_box.currentText()

    def result_theme(self) -> Theme:
        return self.theme_box.currentData()  # type: ignore[no-any-return]

    def result_profiles(self) -> list[ProviderProfile]:
        return list(self._profiles)
