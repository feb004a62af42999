"""The tokenizer with a cache folder it cannot write: counts come from memory instead."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.tokens import tokenizer


@pytest.fixture
def fresh_encodings() -> Iterator[None]:
    """Forget loaded encodings so this test loads them again (and so do the next ones)."""
    tokenizer._load.cache_clear()
    yield
    tokenizer._load.cache_clear()


def _unwritable(tmp_path: Path) -> Path:
    """A read-only folder (root ignores modes: then a folder on the read-only /proc)."""
    if os.geteuid() != 0:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        return folder / "tiktoken"
    if not Path("/proc/self").is_dir():
        pytest.skip("no read-only folder to be had here")
    return Path("/proc/sessionlens-tiktoken-cache")


def test_an_unwritable_cache_falls_back_to_memory(tmp_path: Path, fresh_encodings: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken.load

    def no_network(url: str) -> bytes:
        raise AssertionError(f"tried to download {url}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    cache = _unwritable(tmp_path)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    with pytest.raises(ConfigError, match="cannot write tokenizer cache"):
        tokenizer.ensure_tiktoken_data()  # the explicit call still says what is wrong
    assert tokenizer.get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    o200k = tokenizer.get_encoding("o200k_base")
    assert o200k.encode_ordinary("hello world") == [24912, 2375]
    assert o200k.encode("<|endoftext|>", allowed_special="all") == [199999]
    assert not cache.exists()


def test_inspect_works_with_an_unwritable_cache(tmp_path: Path, fresh_encodings: None,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from fixtures.session_files import basic_session
    from sessionlens.engine.cli import main

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(_unwritable(tmp_path)))
    path, _ids = basic_session(tmp_path)
    assert main(["inspect", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tokens"]["exact"] > 0
