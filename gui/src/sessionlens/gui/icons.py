"""The only module that names icon files (assets/icons/*.svg).

Views ask for icons by a short key ("role-user", "mark-error", ...); the files themselves
are drawn by ``resources/make_icons.py``. Icons are loaded through importlib.resources so
they work from a wheel, a zip or a frozen bundle.
"""

from __future__ import annotations

from importlib import resources

from PySide6.QtGui import QIcon, QPixmap

#: Every icon key the GUI uses; a test checks each has a file.
ICON_KEYS = (
    "role-user", "role-assistant", "role-tool-call", "role-tool-result", "role-tool-error",
    "role-bash", "role-custom", "type-compaction", "type-branch", "type-setting", "type-label",
    "type-reset", "type-other", "mark-error", "mark-aborted", "mark-overflow", "mark-pinned", "action-open",
    "action-reload", "action-cancel", "action-settings", "action-tree", "action-browser",
    "action-sample", "app",
)

_cache: dict[str, QIcon] = {}


def icon_bytes(key: str) -> bytes:
    """The SVG source of an icon (KeyError for an unknown key)."""
    if key not in ICON_KEYS:
        raise KeyError(key)
    return (resources.files("sessionlens.gui") / "assets" / "icons" / f"{key}.svg").read_bytes()


def icon(key: str) -> QIcon:
    """The icon for ``key``, loaded once per process."""
    cached = _cache.get(key)
    if cached is None:
        pix = QPixmap()
        pix.loadFromData(icon_bytes(key), "SVG")
        cached = QIcon(pix)
        # a larger rendering too, so toolbar and window icons stay sharp
        big = QPixmap()
        big.loadFromData(icon_bytes(key).replace(b'width="16" height="16"',
                                                  b'width="64" height="64"'), "SVG")
        cached.addPixmap(big)
        _cache[key] = cached
    return cached
