"""The engine/GUI boundary, checked on every test run (CI runs this file too)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_engine_imports_without_qt() -> None:
    """Importing every engine module must not pull in Qt."""
    code = (
        "import sys, importlib, pkgutil, sessionlens.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'sessionlens.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "names = e.public_names()\n"
        "[getattr(e, n) for n in names]\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync', 'pyqtgraph')]\n"
        "print(len(names)); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_linter_contract_holds() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed")
    proc = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "KEPT" in proc.stdout


def test_gui_imports_only_public_engine_names() -> None:
    """The GUI may import ``sessionlens.engine`` itself, never its submodules."""
    offenders = []
    for py in (ROOT / "gui" / "src").rglob("*.py"):
        for n, line in enumerate(py.read_text(encoding="utf-8").splitlines(), 1):
            s = line.strip()
            if s.startswith(("from sessionlens.engine.", "import sessionlens.engine.")):
                if "sessionlens.engine.cli" in s and py.name == "__main__.py":
                    continue  # the headless dispatch, before any Qt import
                offenders.append(f"{py.relative_to(ROOT)}:{n}: {s}")
    assert offenders == []


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    marker = "<!-- test-command -->"
    assert marker in readme
    block = readme.split(marker, 1)[1].split("```", 2)[1]
    command = block.removeprefix("bash").strip()
    assert command in ci


def test_no_public_name_means_two_different_things() -> None:
    """The engine's public surface is the union of module ``__all__``s: no name may clash."""
    import sessionlens.engine as engine

    seen: dict[str, tuple[str, object]] = {}
    clashes = []
    for mod in engine._public_modules():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if name in seen and seen[name][1] is not obj:
                clashes.append(f"{name}: {seen[name][0]} vs {mod.__name__}")
            seen.setdefault(name, (mod.__name__, obj))
    assert clashes == []
    assert sorted(seen) == engine.public_names()
