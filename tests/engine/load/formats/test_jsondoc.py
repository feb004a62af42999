"""Reading single-document JSON record by record: positions, breaks, bad encodings."""

from __future__ import annotations

import json

from sessionlens.engine.load.formats.jsondoc import UNREAD, peek_document, read_document
from sessionlens.engine.model import Diagnostic


def test_records_carry_their_line_and_exact_byte_span() -> None:
    doc = {"id": "x", "messages": [{"text": "caf\u00e9"}, {"text": "\u65e5\u672c"}, 3],
           "tail": True}
    data = json.dumps(doc, indent=2, ensure_ascii=False).encode()
    diags: list[Diagnostic] = []
    got = read_document(data, "f.json", diags, arrays=("messages",))
    assert diags == [] and got.complete and got.top == {"id": "x", "tail": True}
    recs = got.arrays["messages"]
    assert [r.value for r in recs] == doc["messages"]
    for r in recs:
        assert json.loads(data[r.offset:r.offset + r.length]) == r.value
        assert data[:r.offset].count(b"\n") + 1 == r.line


def test_a_cut_document_keeps_every_whole_record_before_the_cut() -> None:
    data = json.dumps([{"a": i} for i in range(5)]).encode()[:-5]
    diags: list[Diagnostic] = []
    got = read_document(data, "f.json", diags)
    assert [r.value for r in got.arrays[""]] == [{"a": i} for i in range(4)]
    (d,) = diags
    assert not got.complete and "breaks off at record 4" in d.reason and d.line == 1


def test_bad_utf8_is_a_warning_and_raw_spans_are_dropped() -> None:
    data = b'[{"t": "ok"}, {"t": "bad \xff byte"}]'
    diags: list[Diagnostic] = []
    got = read_document(data, "f.json", diags)
    assert [r.value["t"] for r in got.arrays[""]] == ["ok", "bad \ufffd byte"]
    assert diags[0].severity == "warning" and all(r.length == 0 for r in got.arrays[""])


def test_peek_reads_the_keys_before_a_body_that_does_not_fit() -> None:
    head = b'{\n  "sessionId": "s",\n  "history": [\n    {"message": {"role": "us'
    kind, fields, first = peek_document(head)
    assert kind == "object" and fields["sessionId"] == "s" and fields["history"] is UNREAD
    assert peek_document(b'[{"ts": 1, "type": "say"}, {"ts"')[2] == {"ts": 1, "type": "say"}
    assert peek_document(b"plain text")[0] == ""
