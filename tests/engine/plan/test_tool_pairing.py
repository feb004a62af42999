"""Which rows a reset keeps: user and assistant messages and the results that pair with a call."""

from __future__ import annotations

from fixtures.factories import TranscriptBuilder
from sessionlens.engine.model import Message, TextBlock
from sessionlens.engine.plan.tool_pairing import reset_kept_indices


def test_results_pair_in_their_frame_later_or_not_at_all() -> None:
    b = TranscriptBuilder()
    b.user("go")                                   # 0 kept
    early = b.result("c9", "before any frame")     # 1 dropped
    c1, c2 = b.call("read"), b.call("read")
    b.assistant("two calls", c1, c2)               # 2 kept
    b.result(c1)                                   # 3 paired
    b.result(c1, "again")                          # 4 duplicate: dropped
    b.custom_message("note")                       # 5 not a message row: dropped
    c3 = b.call("edit")
    b.assistant("next", c3)                        # 6 kept
    b.result(c2, "late")                           # 7 pairs with the open c2 of frame 2
    b.message(Message(role="toolResult", content=(TextBlock("no id"),), tool_name="edit"))  # 8
    b.reset()                                      # 9
    path = list(b.build().path_entries())
    kept = reset_kept_indices(path, 0, 9)
    assert kept == [0, 2, 3, 6, 7, 8]              # 8: the frame's only call takes it
    assert early.id not in {path[i].id for i in kept}
    assert reset_kept_indices(path, -1, 9) == [] and reset_kept_indices(path, 9, 9) == []


def test_a_result_without_an_id_is_not_taken_by_a_call_of_another_tool() -> None:
    b = TranscriptBuilder()
    b.assistant("one call", b.call("read"))
    b.message(Message(role="toolResult", content=(TextBlock("x"),), tool_name="bash"))
    b.reset()
    path = list(b.build().path_entries())
    assert reset_kept_indices(path, 0, 2) == [0]
