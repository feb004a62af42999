"""Does a summary still carry the user's latest request? (OpenClaw ``hasAskOverlap``, §3.6).

An agent that forgets what it was just asked restarts finished work or drops the task; the
overlap rule is the cheap, model-free test OpenClaw's safeguard uses for that. SessionLens
keeps the rule's shape (NFKC, lower case, at most 12 tokens, 1-character and stop words
dropped unless nothing is left, 2 hits needed from 3 tokens up) with its own stop-word list.
The ask itself is the user's own words (``user_words``), not the envelope around them.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["ASK_MAX_TOKENS", "STOP_WORDS", "ask_overlap", "ask_tokens", "has_ask_overlap"]

#: At most this many tokens of the ask are compared.
ASK_MAX_TOKENS = 12

STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each else few for from
further get got had has have having he her here hers him his how i if in into is it its itself
just let like me more most my no nor not now of off on once only or other our ours out over own
please same she should so some such than that the their them then there these they this those
through to too under until up us very was we were what when where which while who whom why will
with would you your yours yourself ok okay yes yeah hi hey thanks thank now then also still
can't don't isn't it's i'm i've let's that's there's what's won't
""".split())

_SPLIT = re.compile(r"[^\w']+|_")
def _tokens(text: str) -> list[str]:
    normalized = unicodedata.normalize("NFKC", text).lower()
    return [t.strip("'") for t in _SPLIT.split(normalized) if t.strip("'")]


def ask_tokens(ask: str) -> tuple[str, ...]:
    """The ask's distinct tokens that the summary is checked for (at most 12)."""
    raw: list[str] = []
    for token in _tokens(ask):
        if token not in raw:
            raw.append(token)
    meaningful = [t for t in raw if len(t) > 1 and t not in STOP_WORDS]
    return tuple((meaningful or raw)[:ASK_MAX_TOKENS])


def ask_overlap(summary: str, ask: str) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """(tokens checked, tokens found in the summary, matches required)."""
    wanted = ask_tokens(ask)
    have = set(_tokens(summary))
    found = tuple(t for t in wanted if t in have)
    return wanted, found, (2 if len(wanted) >= 3 else 1)


def has_ask_overlap(summary: str, ask: str | None) -> bool:
    """True when the summary reflects the ask (always true for an empty ask)."""
    if not ask or not ask.strip():
        return True
    wanted, found, need = ask_overlap(summary, ask)
    return not wanted or len(found) >= need
