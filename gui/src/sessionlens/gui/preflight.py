"""Start-up preflight: name the system libraries Qt's xcb plugin lacks, before Qt aborts.

Qt's own abort on a bare Linux machine blames ``xcb-cursor0`` whatever is really missing.
``ldd`` of the plugin lists every library it cannot find (its dependencies' too), so the
user gets the exact files and the Debian/Ubuntu packages that bring them. Never imports Qt:
PySide6's folder is found from its package spec.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Libraries whose Debian package name the general rule below gets wrong.
_PACKAGE_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.MULTILINE)


def xcb_plugin() -> Path | None:
    """PySide6's ``libqxcb.so``, or None where PySide6 or the plugin is absent."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        plugin = Path(root) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def missing_libraries(plugin: Path) -> list[str]:
    """The libraries ``ldd`` reports as not found for ``plugin``, each once, in its order."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    try:
        out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True,
                             timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return list(dict.fromkeys(_NOT_FOUND.findall(out)))


def debian_package(library: str) -> str:
    """``libxcb-icccm.so.4`` -> ``libxcb-icccm4``; ``libxkbcommon-x11.so.0`` -> ``libxkbcommon-x11-0``."""
    if library in _PACKAGE_EXCEPTIONS:
        return _PACKAGE_EXCEPTIONS[library]
    stem, _, version = library.partition(".so")
    version = version.lstrip(".").split(".")[0]
    name = stem.lower()
    if not version:
        return name
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def needs_xcb(environ: dict[str, str] | None = None) -> bool:
    """True when Qt will load the xcb plugin: Linux, no other platform asked for, no Wayland."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.split(":")[0].split(";")[0] == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def preflight_problem(environ: dict[str, str] | None = None) -> str | None:
    """What stops the window from opening, in words a user can act on; None when all is there."""
    if not needs_xcb(environ):
        return None
    plugin = xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin)
    if not missing:
        return None
    packages = list(dict.fromkeys(debian_package(lib) for lib in missing))
    return (
        "SessionLens cannot open its window: Qt's xcb platform plugin needs system libraries "
        "that are not installed:\n"
        + "".join(f"  {lib}\n" for lib in missing)
        + "On Debian or Ubuntu install them with:\n"
        + f"  sudo apt-get install {' '.join(packages)}\n"
        + "(other distributions ship the same files under similar names). Headless use needs "
        "none of them: `sessionlens --help` lists the subcommands, and QT_QPA_PLATFORM=offscreen "
        "runs --screenshot and --self-test without a display."
    )
