"""The pin sidecar: per session file, under SessionLens's folders, never in the transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.errors import PersistError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.persist.pins import add_pins, load_pins, pins_path, remove_pins


def _session(tmp_path: Path) -> Path:
    b = TranscriptBuilder()
    b.user("keep this rule")
    b.assistant("noted")
    return b.write(tmp_path / "s.jsonl")


def test_pins_are_remembered_beside_nothing_the_agent_reads(tmp_path: Path) -> None:
    path = _session(tmp_path)
    before = path.read_bytes()
    t = load_transcript(path)
    first, second = (e.id for e in t.entries)
    base = tmp_path / "state"
    add_pins(t, [first], base)
    add_pins(t, [second, first], base)
    assert load_pins(t, base).entry_ids == (first, second)
    assert path.read_bytes() == before
    sidecar = pins_path(t, base)
    assert sidecar.is_relative_to(base)
    assert json.loads(sidecar.read_text())["pins"] == [first, second]
    assert remove_pins(t, [first], base).entry_ids == (second,)
    assert load_pins(load_transcript(path), base).entry_ids == (second,)


def test_unknown_id_names_it_and_another_session_at_the_path_inherits_nothing(
        tmp_path: Path) -> None:
    path = _session(tmp_path)
    t = load_transcript(path)
    base = tmp_path / "state"
    with pytest.raises(PersistError, match="no-such-id"):
        add_pins(t, ["no-such-id"], base)
    add_pins(t, [t.entries[0].id], base)
    other = TranscriptBuilder(session_id="another-session")
    other.user("x")
    replaced = load_transcript(other.write(path))
    assert load_pins(replaced, base).entry_ids == ()
