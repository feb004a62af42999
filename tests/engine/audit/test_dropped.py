"""What a summary dropped, and the recovery pack that names every lost specific."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.factories import TranscriptBuilder
from fixtures.samples import sample_path
from sessionlens.engine.audit.dropped import (
    DroppedItem,
    build_recovery_pack,
    find_dropped,
    group_by_class,
)
from sessionlens.engine.audit.report import audit_compaction
from sessionlens.engine.contract.identifiers import extract_identifiers
from sessionlens.engine.load.reader import load_transcript


def _span() -> TranscriptBuilder:
    b = TranscriptBuilder()
    b.user("Move /srv/app/config.yaml and check https://status.example.com/api")
    call = b.call("bash", command="systemctl restart app")
    b.assistant("restarting", call)
    b.result(call, "Job failed: ConnectionRefusedError: port 5432 refused", is_error=True)
    b.assistant("It took 250ms; the db at db.internal.example:5432 is down.")
    return b


def test_find_dropped_groups_by_class_and_links_entries() -> None:
    b = _span()
    entities = extract_identifiers(b.entries)
    summary = "We moved /srv/app/config.yaml; ran `systemctl  restart app`."
    dropped = find_dropped(summary, entities)
    values = [d.value for d in dropped]
    assert "/srv/app/config.yaml" not in values
    assert "systemctl restart app" not in values  # whitespace-insensitive for commands
    kept_or_lost = {e.value for e in entities}
    assert set(values) == kept_or_lost - {"/srv/app/config.yaml", "systemctl restart app"}
    classes = [d.cls for d in dropped]
    assert classes == sorted(classes, key=["path", "command", "error", "url", "uuid", "hash",
                                           "host", "port", "quantity", "number"].index)
    err = next(d for d in dropped if d.cls == "error")
    assert err.entry_ids == (b.entries[2].id,)
    assert list(group_by_class(dropped)) == list(dict.fromkeys(classes))


def test_recovery_pack_names_every_dropped_identifier() -> None:
    b = _span()
    dropped = find_dropped("", extract_identifiers(b.entries))
    pack = build_recovery_pack(dropped, source="s.jsonl, compaction abc")
    assert pack.total == len(dropped) > 0
    assert pack.named_in_instruction == pack.total and pack.omitted_from_instruction == 0
    assert pack.instruction.startswith("/compact Focus on ")
    for item in dropped:
        assert item.value in pack.addendum
        assert " ".join(item.value.split()) in pack.instruction
        for entry_id in item.entry_ids:
            assert entry_id in pack.addendum
    assert "more (see the recovery addendum)" not in pack.instruction


def test_recovery_instruction_is_bounded_but_never_silent() -> None:
    items = tuple(DroppedItem(f"/srv/data/file_{i:03d}.csv", "path", (f"{i:08x}",))
                  for i in range(200))
    items += (DroppedItem("make deploy", "command", ("000000ff",)),)
    pack = build_recovery_pack(items, max_instruction_chars=400)
    assert len(pack.instruction) <= 400
    assert 0 < pack.named_in_instruction < pack.total == 201
    assert f"and {pack.total - pack.named_in_instruction} more" in pack.instruction
    assert "make deploy" in pack.instruction  # round-robin: one class cannot crowd out another
    named = [i for i in items if i.value in pack.instruction]
    assert len(named) == pack.named_in_instruction
    for item in items:  # the addendum is complete
        assert item.value in pack.addendum


def test_an_item_too_long_to_name_is_counted_not_hidden() -> None:
    items = (DroppedItem("x" * 600, "error", ("00000001",)), DroppedItem("/a/b.py", "path", ()))
    pack = build_recovery_pack(items, max_instruction_chars=300)
    assert "/a/b.py" in pack.instruction
    assert "and 1 more" in pack.instruction
    assert "x" * 600 in pack.addendum


def test_backticks_in_values_stay_inside_code_spans() -> None:
    pack = build_recovery_pack((DroppedItem("echo `date`", "command", ("00000001",)),))
    assert "``echo `date```" in pack.addendum or "`` echo `date` ``" in pack.addendum


def test_nothing_dropped() -> None:
    pack = build_recovery_pack(())
    assert pack.total == 0 and "Nothing was dropped" in pack.addendum
    assert pack.instruction.startswith("/compact Focus on ")


@pytest.mark.samples
def test_sample03_recovery_pack_is_complete(samples_dir: Path) -> None:
    transcript = load_transcript(sample_path(samples_dir, "03_"))
    report = audit_compaction(transcript, transcript.compactions[-1].id)
    summary = transcript.compactions[-1].summary or ""
    entities = report.entities
    assert entities, "the last compaction of sample 03 summarized real work"
    assert {d.value for d in report.dropped} == {e.value for e in entities if e.value not in summary}
    pack = build_recovery_pack(report.dropped)
    for item in report.dropped:
        assert item.value in pack.addendum
    assert pack.named_in_instruction < pack.total
    assert f"and {pack.total - pack.named_in_instruction} more" in pack.instruction


_PIECES = ["/srv/app/main.py", "src/lib/x.ts", "C:\\Users\\me\\a.txt", "https://ex.org/a?b=1",
           "019d2308-c368-7ca0-8331-65a7d470352c", "83378aad7e74", "localhost:8080", "8080/tcp",
           "250ms", "3.5 GB", "42%", "37,185 bytes", "1234567", "main.ts:867", "plain", "words",
           "(", ")", "`", "'", ",", "."]


@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=12), min_size=1, max_size=6),
       st.lists(st.sampled_from(["ls -la /tmp", "make  test", "git log -1"]), max_size=3))
@settings(max_examples=60, deadline=None)
def test_a_summary_quoting_every_entity_drops_nothing(texts: list[list[str]],
                                                      commands: list[str]) -> None:
    b = TranscriptBuilder()
    for words in texts:
        b.user(" ".join(words))
    for command in commands:
        call = b.call("bash", command=command)
        b.assistant("", call)
        b.result(call, f"Error: {command} failed", is_error=True)
    entities = extract_identifiers(b.entries)
    # a quantity is kept with what it measures: quoting each entity means quoting its context
    summary = "\n".join(e.display for e in entities)
    assert find_dropped(summary, entities) == ()
    assert {d.value for d in find_dropped("", entities)} == {e.value for e in entities}
