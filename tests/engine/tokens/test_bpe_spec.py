"""The kept tokenizer arguments: the same encoding as tiktoken's, and never a corrupt one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionlens.engine.tokens.bpe_spec import read_spec, spec_path, write_spec
from sessionlens.engine.tokens.tokenizer import ensure_tiktoken_data

TEXTS = ["hello world", "def f(x):\n    return x * 2\n", "会话上下文压缩", "<|endoftext|> as text",
         "😀 " * 20, '{"id": 3, "tags": ["a", "b"]}']


@pytest.fixture(scope="module")
def cl100k_spec() -> dict[str, object]:
    ensure_tiktoken_data()  # the test session's own tiktoken folder
    from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

    spec: dict[str, object] = ENCODING_CONSTRUCTORS["cl100k_base"]()
    return spec


def test_an_encoding_built_from_kept_arguments_is_tiktokens(tmp_path: Path,
                                                           cl100k_spec: dict[str, object]) -> None:
    import tiktoken

    path = spec_path(tmp_path, "cl100k_base", tiktoken.__version__)
    assert write_spec(path, cl100k_spec)
    kept = read_spec(path, "cl100k_base")
    assert kept == cl100k_spec
    ours, theirs = tiktoken.Encoding(**kept), tiktoken.get_encoding("cl100k_base")
    for text in TEXTS:
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


def test_a_torn_or_foreign_file_is_ignored(tmp_path: Path,
                                           cl100k_spec: dict[str, object]) -> None:
    path = tmp_path / "x.spec"
    write_spec(path, cl100k_spec)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    assert read_spec(path, "cl100k_base") is None            # digest mismatch
    write_spec(path, cl100k_spec)
    assert read_spec(path, "o200k_base") is None              # not the encoding asked for
    path.write_bytes(path.read_bytes()[:100])
    assert read_spec(path, "cl100k_base") is None             # cut short
    assert read_spec(tmp_path / "missing.spec", "cl100k_base") is None


def test_an_unwritable_folder_is_not_an_error(tmp_path: Path,
                                              cl100k_spec: dict[str, object]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert write_spec(blocker / "sub" / "x.spec", cl100k_spec) is False
    assert list(tmp_path.iterdir()) == [blocker]
