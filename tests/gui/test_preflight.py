"""The start-up preflight names the libraries Qt's xcb plugin lacks and their packages."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sessionlens.gui import preflight


@pytest.mark.parametrize(("library", "package"), [
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libdbus-1.so.3", "libdbus-1-3"),
    ("libX11-xcb.so.1", "libx11-xcb1"),
    ("libEGL.so.1", "libegl1"),
    ("libglib-2.0.so.0", "libglib2.0-0"),
])
def test_debian_package_names(library: str, package: str) -> None:
    assert preflight.debian_package(library) == package


LDD_OUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/libQt6XcbQpa.so.6 (0x00007f4e)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f4e)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
"""


def test_problem_names_only_the_missing_libraries(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"")
    monkeypatch.setattr(preflight, "xcb_plugin", lambda: plugin)
    monkeypatch.setattr(preflight.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a, 0, stdout=LDD_OUT, stderr=""))
    monkeypatch.setattr(preflight.sys, "platform", "linux")
    text = preflight.preflight_problem({"DISPLAY": ":0"})
    assert text is not None
    assert "libxcb-icccm.so.4" in text and "libxcb-keysyms.so.1" in text
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1\n" in text
    assert "libxcb-cursor" not in text  # present, so not blamed as Qt does


def test_no_problem_when_another_platform_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preflight.sys, "platform", "linux")
    assert not preflight.needs_xcb({"QT_QPA_PLATFORM": "offscreen"})
    assert not preflight.needs_xcb({"WAYLAND_DISPLAY": "wayland-0"})
    assert preflight.needs_xcb({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"})
    assert preflight.needs_xcb({"DISPLAY": ":0"})
    assert preflight.preflight_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
