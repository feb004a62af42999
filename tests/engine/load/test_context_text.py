"""The replayed context as ``{role, text}`` items (``inspect --json`` ``context``)."""

from __future__ import annotations

from fixtures.agent_lines import META, item, rec, text_msg
from fixtures.agent_lines import cx_load as load
from sessionlens.engine.cli.inspect_cmd import inspect_summary
from sessionlens.engine.load.context_text import context_texts


def test_roles_tool_items_and_a_summary_that_follows_its_kept_messages() -> None:
    history = [{"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "ask"}]},
               {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "S"}]}]
    t = load(META, item("message", role="developer",
                        content=[{"type": "input_text", "text": "a"},
                                 {"type": "input_text", "text": "b"}]),
             text_msg("user", "ask"),
             item("function_call", name="exec_command", arguments='{"z": 1, "a": 2}',
                  call_id="c1"),
             item("function_call_output", call_id="c1", output="out"),
             text_msg("assistant", "done"),
             rec("compacted", message="S", replacement_history=history),
             text_msg("user", "next"))
    assert context_texts(t) == [
        {"role": "developer", "text": "You are Codex."},   # session_meta base_instructions
        {"role": "user", "text": "ask"}, {"role": "user", "text": "S"},
        {"role": "user", "text": "next"}]
    before = load(META, item("message", role="developer",
                             content=[{"type": "input_text", "text": "a"},
                                      {"type": "input_text", "text": "b"}]),
                  item("function_call", name="exec_command", arguments='{"z": 1, "a": 2}',
                       call_id="c1"),
                  item("function_call_output", call_id="c1", output="out"))
    assert context_texts(before)[1:] == [
        {"role": "developer", "text": "a\nb"},
        {"role": "tool_call", "text": 'exec_command {"a":2,"z":1}'},
        {"role": "tool_result", "text": "out"}]
    assert inspect_summary(before)["context"] == context_texts(before)
