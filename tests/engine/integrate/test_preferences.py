"""The user's integration preferences: defaults, bounds, and errors naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.integrate.preferences import IntegrationPrefs, load_prefs, load_profile


def test_defaults_without_a_file(tmp_path: Path) -> None:
    assert load_prefs(tmp_path) == IntegrationPrefs()
    assert load_profile(tmp_path, "offline").kind == "offline"


def test_values_read_and_bounded(tmp_path: Path) -> None:
    (tmp_path / "integrations.json").write_text(
        '{"focus": "schema", "quality_retries": 9, "deadline_s": 10, '
        '"on_audit_failure": "cancel"}')
    p = load_prefs(tmp_path)
    assert (p.focus, p.quality_retries, p.deadline_s, p.on_audit_failure) == (
        "schema", 3, 10.0, "cancel")


def test_bad_files_are_errors_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "integrations.json").write_text('{\n "focus": }')
    with pytest.raises(ConfigError, match=r"integrations.json:2"):
        load_prefs(tmp_path)
    (tmp_path / "integrations.json").write_text('{"on_audit_failure": "ignore"}')
    with pytest.raises(ConfigError, match="on_audit_failure"):
        load_prefs(tmp_path)
    (tmp_path / "profiles.json").write_text('{"profiles": [{"name": "w", "kind": "openai"}]}')
    assert load_profile(tmp_path, "w").kind == "openai"
    with pytest.raises(ConfigError, match="no profile named 'x'"):
        load_profile(tmp_path, "x")
