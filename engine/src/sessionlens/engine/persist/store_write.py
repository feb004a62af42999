"""Writing OpenClaw's ``sessions.json``: change a few fields of a few records, nothing else.

The store belongs to OpenClaw and holds much we do not understand (skills snapshots, system
prompt reports, delivery contexts). So an edit is spliced into the original text: only the
values of the fields we set are re-serialised, every other byte stays as it was (key order,
indentation, number spelling, a missing final newline). The spliced text is parsed back and
compared with the intended result before it is written; if the splice ever disagrees, the
whole store is re-serialised in its own layout instead. The file is replaced atomically and
under ``sessions.json.lock``, so it is a valid, complete JSON document at every instant.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessionlens.engine._io.atomic import atomic_write_bytes
from sessionlens.engine.errors import PersistError
from sessionlens.engine.sessions.store import foreign_basename

from .guard import hold_lock

__all__ = [
    "STORE_FILE_NAME", "StoreLayout", "StoreEdit", "find_store", "detect_layout",
    "read_store_object", "splice_store", "update_store", "matching_session_keys",
]

STORE_FILE_NAME = "sessions.json"
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()

#: session key -> field -> new value (fields not named are left exactly as they are).
StoreEdit = Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class StoreLayout:
    """How the store was written, so new values look like their neighbours."""

    indent: str | None  # None: everything on one line
    item_sep: str
    key_sep: str
    ensure_ascii: bool
    final_newline: bool


def find_store(folder: Path) -> Path | None:
    """The ``sessions.json`` of a sessions folder, if there is one."""
    candidate = Path(folder) / STORE_FILE_NAME
    return candidate if candidate.is_file() else None


def detect_layout(text: str) -> StoreLayout:
    """Indentation, separators, escaping and final newline of a JSON document."""
    m = re.match(r"\s*\{\n([ \t]+)\"", text)
    indent = m.group(1) if m else None
    if indent is None:
        item_sep = ", " if re.search(r"\",\s\"", text[:4096]) else ","
    else:
        item_sep = ","
    key_sep = ": " if re.search(r"\":\s", text[:4096]) else ":"
    has_raw = not text.isascii()
    ensure_ascii = not has_raw and bool(re.search(r"\\u[0-9a-fA-F]{4}", text))
    return StoreLayout(indent, item_sep, key_sep, ensure_ascii, text.endswith("\n"))


def _dumps(value: Any, layout: StoreLayout, level_indent: str) -> str:
    if layout.indent is None:
        return json.dumps(value, ensure_ascii=layout.ensure_ascii,
                          separators=(layout.item_sep, layout.key_sep))
    text = json.dumps(value, ensure_ascii=layout.ensure_ascii, indent=layout.indent,
                      separators=(layout.item_sep, layout.key_sep))
    return text.replace("\n", "\n" + level_indent)


@dataclass(frozen=True, slots=True)
class _Member:
    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def _members(text: str, pos: int) -> list[_Member]:
    """The members of the JSON object starting at ``pos`` (which must be ``{``)."""
    if text[pos] != "{":
        raise ValueError(f"expected an object at offset {pos}")
    out: list[_Member] = []
    i = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    if text[i] == "}":
        return out
    while True:
        key, key_end = _DECODER.raw_decode(text, i)
        if not isinstance(key, str):
            raise ValueError(f"object key expected at offset {i}")
        j = _WS.match(text, key_end).end()  # type: ignore[union-attr]
        if text[j] != ":":
            raise ValueError(f"':' expected at offset {j}")
        v = _WS.match(text, j + 1).end()  # type: ignore[union-attr]
        _, v_end = _DECODER.raw_decode(text, v)
        out.append(_Member(key, i, key_end, v, v_end))
        k = _WS.match(text, v_end).end()  # type: ignore[union-attr]
        if text[k] == "}":
            return out
        if text[k] != ",":
            raise ValueError(f"',' or '}}' expected at offset {k}")
        i = _WS.match(text, k + 1).end()  # type: ignore[union-attr]


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    return text[start:pos] if text[start:pos].strip() == "" else ""


def _splice(text: str, edits: StoreEdit, layout: StoreLayout) -> str:
    """Set the fields in ``edits`` by rewriting only their values in ``text``."""
    start = _WS.match(text).end()  # type: ignore[union-attr]
    top = {m.key: m for m in _members(text, start)}
    replacements: list[tuple[int, int, str]] = []
    for skey, fields in edits.items():
        member = top.get(skey)
        if member is None or text[member.value_start] != "{":
            raise ValueError(f"no object record {skey!r} in the store")
        inner = _members(text, member.value_start)
        by_key = {m.key: m for m in inner}
        if not inner:
            raise ValueError(f"record {skey!r} is empty")
        indent = _line_indent(text, inner[0].key_start)
        sep = text[inner[-2].value_end:inner[-1].key_start] if len(inner) > 1 else (
            "," + text[member.value_start + 1:inner[0].key_start])
        colon = text[inner[0].key_end:inner[0].value_start]
        additions = ""
        for fkey, value in fields.items():
            rendered = _dumps(value, layout, indent)
            if fkey in by_key:
                m = by_key[fkey]
                replacements.append((m.value_start, m.value_end, rendered))
            else:
                key_text = json.dumps(fkey, ensure_ascii=layout.ensure_ascii)
                additions += f"{sep}{key_text}{colon}{rendered}"
        if additions:
            end = inner[-1].value_end
            replacements.append((end, end, additions))
    for a, b, new in sorted(replacements, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, sort_keys=False)


def splice_store(text: str, edits: StoreEdit) -> str:
    """The store text with ``edits`` applied, every other byte unchanged where possible."""
    original = json.loads(text)
    if not isinstance(original, dict):
        raise ValueError("the store is not a JSON object")
    expected = dict(original)
    for skey, fields in edits.items():
        record = expected.get(skey)
        if not isinstance(record, dict):
            raise ValueError(f"no object record {skey!r} in the store")
        expected[skey] = {**record, **fields}
    layout = detect_layout(text)
    try:
        spliced = _splice(text, edits, layout)
        if _canonical(json.loads(spliced)) == _canonical(expected):
            return spliced
    except ValueError:
        pass
    whole = json.dumps(expected, ensure_ascii=layout.ensure_ascii,
                       indent=layout.indent, separators=(layout.item_sep, layout.key_sep))
    return whole + ("\n" if layout.final_newline else "")


def read_store_object(store_path: Path) -> tuple[str, dict[str, Any]]:
    """The store's text and its parsed object (PersistError if it is not a JSON object)."""
    try:
        text = Path(store_path).read_bytes().decode("utf-8")
        obj = json.loads(text)
    except (OSError, ValueError) as exc:
        raise PersistError(store_path, f"cannot read the session store: {exc}") from exc
    if not isinstance(obj, dict):
        raise PersistError(store_path, "the session store is not a JSON object")
    return text, obj


def update_store(store_path: Path | str,
                 plan: Callable[[dict[str, Any]], StoreEdit]) -> StoreEdit:
    """Read the store under its lock, let ``plan`` decide the edits, write them atomically.

    ``plan`` sees the freshly read store and returns the fields to set; an empty edit
    writes nothing. Returns the edits applied.
    """
    path = Path(store_path)
    with hold_lock(path):
        text, obj = read_store_object(path)
        edits = plan(obj)
        if not edits:
            return edits
        try:
            new_text = splice_store(text, edits)
        except ValueError as exc:
            raise PersistError(path, f"cannot update the session store: {exc}") from exc
        atomic_write_bytes(path, new_text.encode("utf-8"))
    return edits


def matching_session_keys(store: Mapping[str, Any], transcript_path: Path,
                          session_id: str | None) -> list[str]:
    """Keys of the records that point at this transcript.

    A record with a ``sessionFile`` matches by file name (paths may come from another
    machine); one without matches when its ``sessionId`` is the transcript's session id.
    """
    name = Path(transcript_path).name
    keys: list[str] = []
    for key, rec in store.items():
        if not isinstance(rec, dict):
            continue
        sfile = rec.get("sessionFile")
        if isinstance(sfile, str) and sfile:
            if foreign_basename(sfile) == name:
                keys.append(key)
        elif session_id and rec.get("sessionId") == session_id:
            keys.append(key)
    return keys
