"""The offline tokenizer: seeded tiktoken data, no downloads, counts from memory when the
cache folder cannot be written (the chunked counter is in test_text_counter)."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionlens.engine.errors import ConfigError
from sessionlens.engine.tokens import tokenizer
from sessionlens.engine.tokens.tokenizer import ensure_tiktoken_data, get_encoding

CL100K_KEY = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
O200K_KEY = "fb374d419588a4632f3f557e76b4b70aebbca790"


def test_known_ids_offline_from_an_empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken.load

    def no_network(url: str) -> bytes:
        raise AssertionError(f"tried to download {url}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", os.environ.get("TIKTOKEN_CACHE_DIR", ""))
    cache = tmp_path / "empty"
    assert ensure_tiktoken_data(cache) == cache
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(cache)
    assert sorted(p.name for p in cache.iterdir()) == sorted([CL100K_KEY, O200K_KEY])
    # tiktoken's own loader, with downloads disabled, reads what we seeded.
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    assert hashlib.sha1(url.encode()).hexdigest() == O200K_KEY
    ranks = tiktoken.load.load_tiktoken_bpe(
        url, expected_hash="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d")
    assert ranks[b"hello"] == 24912
    assert get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]


def test_seeding_respects_the_environment_and_repairs_a_corrupt_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "env"))
    assert ensure_tiktoken_data() == tmp_path / "env"
    bad = tmp_path / "env" / CL100K_KEY
    bad.write_bytes(b"garbage")
    tokenizer._seeded.clear()
    ensure_tiktoken_data()
    assert hashlib.sha256(bad.read_bytes()).hexdigest().startswith("223921b7")


def test_empty_cache_variable_falls_back_to_the_user_cache_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken would download on every use
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = ensure_tiktoken_data()
    assert folder == tmp_path / "xdg" / "SessionLens" / "tiktoken"
    assert (folder / O200K_KEY).is_file()


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

    from fixtures.scenarios import basic_session
    from sessionlens.engine.cli import main

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(_unwritable(tmp_path)))
    path, _ids = basic_session(tmp_path)
    assert main(["inspect", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tokens"]["exact"] > 0
