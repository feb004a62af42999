"""The agents' own token estimates (Gemini CLI's, OpenCode's), against hand-computed sums."""

from __future__ import annotations

import math

import pytest

from sessionlens.engine.load.tree import build_transcript
from sessionlens.engine.model import Entry, Message, TextBlock, ToolCallBlock
from sessionlens.engine.tokens.agent_rules import GEMINI_IMAGE_TOKENS, agent_entry_tokens
from sessionlens.engine.tokens.counts import count_tokens


def entry(msg: Message, eid: str = "e1") -> Entry:
    return Entry(type="message", id=eid, parent_id=None, timestamp=None, line=1, message=msg)


def test_gemini_charges_ascii_a_quarter_and_other_characters_one_point_three() -> None:
    e = entry(Message("user", (TextBlock("abcd" * 10 + "\u65e5\u672c\u8a9e"),)))
    assert agent_entry_tokens(e, "gemini") == math.floor(40 * 0.25 + 3 * 1.3)
    call = entry(Message("assistant", (ToolCallBlock("c", "grep", {"q": "x"}),)))
    assert agent_entry_tokens(call, "gemini") == math.floor(
        len('{"functionCall":{"name":"grep","args":{"q":"x"}}}') / 4)
    from sessionlens.engine.model import ImageBlock
    img = entry(Message("user", (ImageBlock("image/png", "AAAA"),)))
    assert agent_entry_tokens(img, "gemini") == GEMINI_IMAGE_TOKENS


def test_opencode_rounds_characters_over_four() -> None:
    e = entry(Message("user", (TextBlock("x" * 10),)))
    assert agent_entry_tokens(e, "chars4") == 3  # round(2.5) half up, as JavaScript does
    assert agent_entry_tokens(entry(Message("user", (TextBlock("x" * 9),))), "chars4") == 2
    with pytest.raises(ValueError, match="unknown agent token rule"):
        agent_entry_tokens(e, "nope")


def test_the_report_names_the_rule_or_none() -> None:
    es = [entry(Message("user", (TextBlock("hello world"),)))]
    gemini = build_transcript("/x/session-a.jsonl", "gemini-jsonl", None, es, ())
    cursor = build_transcript("/x/a.jsonl", "cursor-jsonl", None, es, ())
    pi = build_transcript("/x/a.jsonl", "openclaw-v3", None, es, ())
    g, c, p = (count_tokens(t) for t in (gemini, cursor, pi))
    assert (g.agent_rule, g.estimate_context_agent) == ("gemini", math.floor(11 * 0.25))
    assert (c.agent_rule, c.estimate_context_agent) == (None, None)
    assert (p.agent_rule, p.estimate_context_agent) == ("pi", p.estimate_context)
