"""Facts the offline summarizer lifts out of entries, each one a verbatim piece of them.

Nothing here paraphrases: a fact is a sentence, a line or an identifier copied from the
entries (whitespace collapsed, long ones cut with "…"). That is what lets the offline
provider promise it never writes something the transcript does not say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sessionlens.engine.contract.error_lines import find_errors
from sessionlens.engine.contract.identifiers import (
    AUDIT_RECENT_MESSAGES,
    Identifier,
    entry_text,
    extract_identifiers,
    extract_opaque_identifiers,
)
from sessionlens.engine.contract.opaque import trim_identifier
from sessionlens.engine.contract.user_words import is_silent_reply, user_words
from sessionlens.engine.model import Entry, TextBlock

__all__ = ["Facts", "extract_facts", "first_sentences", "is_substantive_ask", "shorten",
           "verbatim_in", "whole_token"]

_SENTENCE_MAX = 320
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])|\n+")
_CONSTRAINT = re.compile(
    r"\b(must|mustn't|never|don't|do not|always|prefer|preferably|avoid|should(?:n't| not)?|"
    r"make sure|ensure|no more than|at most|at least|without|required?|only use|not allowed|"
    r"keep it|stick to|please use|please don't|forbidden|mandatory)\b", re.I)
_DECISION = re.compile(
    r"\b(decided|decision|decide to|we'll use|i'll use|let's use|let's go with|go with|going with|"
    r"chose|choose|opted|settled on|switch(?:ed|ing)? to|instead of|rather than|will use|"
    r"we use|agreed)\b", re.I)
_NEXT = re.compile(
    r"\b(next,? i|next step|next we|then i'll|i'll now|i will now|still need|needs? to be|todo|"
    r"remaining|follow[- ]up|after that|afterwards|once that|will then)\b", re.I)
_ERROR = re.compile(r"error|exception|failed|failure|fatal|traceback|denied|refused|timed out|"
                    r"cannot|could not|not found|no such", re.I)
_KEY_ARGS = ("command", "cmd", "path", "file_path", "filePath", "file", "url", "pattern", "query",
             "old_path", "new_path", "target", "name")
_WS = re.compile(r"\s+")
_SHORT_HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7}(?![\w-])")


def shorten(text: str, limit: int = _SENTENCE_MAX) -> str:
    """Collapse whitespace; cut at a word boundary with "…" when too long."""
    text = _WS.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip() + "…"


def verbatim_in(value: str, haystack: str) -> str | None:
    """``value`` as it is written in ``haystack`` (case and spacing restored), or None."""
    if value in haystack:
        return value
    words = value.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    match = re.search(pattern, haystack, re.I)
    return match.group(0) if match else None


#: A slash command the user typed to the agent's UI ("/mode", "/model gpt-5"): no ask.
_SLASH = re.compile(r"^/[\w-]+(?:\s+\S+){0,2}\s*$")
#: A continuation that asks nothing new ("continue", "ok go on", "yes").
_CONTINUE = re.compile(
    r"^(?:ok(?:ay)?|yes|yep|y|no|k|sure|continue|go on|go ahead|proceed|next|keep going|"
    r"do it|carry on|again|retry|thanks|thank you|ty|hi|hello|hey|lgtm|done)[\s.!,]*"
    r"(?:continue|go on|please|pls|thanks)?[\s.!]*$", re.I)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def is_substantive_ask(text: str) -> bool:
    """Whether a user turn asks for something: not a slash command, not a one- or two-word
    continuation ("continue", "ok"), not an empty line."""
    t = re.sub(r"<[^>\n]{0,200}>", " ", text).strip()  # an attachment tag says nothing
    if not t or _SLASH.match(t) or _CONTINUE.match(t):
        return False
    if _CJK.search(t):
        return len(t) >= 4
    return len(t.split()) >= 2


def first_sentences(text: str, n: int = 2, limit: int = _SENTENCE_MAX) -> str:
    """The first ``n`` sentences of ``text`` (whitespace collapsed, at most ``limit``)."""
    parts = [p for p in _SENTENCE_SPLIT.split(text.strip()) if p.strip()]
    return shorten(" ".join(parts[:n]), limit)


@dataclass(frozen=True, slots=True)
class Facts:
    #: The user's substantive asks, in order (slash commands and continuations left out).
    asks: tuple[str, ...]
    #: The literal latest user turn (what the audit's latest-ask check compares).
    latest_ask: str | None
    constraints: tuple[str, ...]
    decisions: tuple[str, ...]
    done: tuple[str, ...]
    in_progress: tuple[str, ...]
    blocked: tuple[str, ...]
    next_steps: tuple[str, ...]
    #: Verbatim identifiers, most important first (recent messages, then by class order);
    #: a quantity comes with what it measures ("p99 latency is 175 ms").
    identifiers: tuple[str, ...]
    #: Every error message of the entries, each with where it was written.
    errors: tuple[str, ...]
    #: Summaries found inside the entries (compactions / branch summaries in the stretch).
    embedded_summaries: tuple[str, ...]
    #: The goal in a sentence or two: the first substantive ask, and the latest one when
    #: it is another.
    goal: tuple[str, ...] = ()


def _sentences(text: str) -> Iterable[str]:
    for part in _SENTENCE_SPLIT.split(text):
        part = part.strip(" -*#>\t")
        if len(part) >= 8:
            yield part


def _dedup(items: Iterable[str], *, fold: bool = True) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for item in items:
        key = item.casefold() if fold else item
        if item and key not in seen:
            seen[key] = item
    return tuple(seen.values())


def _call_label(name: str, arguments: object) -> str:
    if isinstance(arguments, dict):
        for key in _KEY_ARGS:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                first = value.strip().splitlines()[0]
                return f"{name} `{shorten(first, 160)}`"
    return name


def _user_texts(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    out = []
    for e in entries:
        if e.message is not None and e.message.role == "user":
            text = user_words(e.message.text)
            if text:
                out.append((e.id, text))
    return out


def _progress(entries: Sequence[Entry]
              ) -> tuple[list[str], list[str], list[str], dict[str, str]]:
    """(done, in progress, blocked, entry id -> where its output came from) from tool calls,
    their results and failures."""
    pending: dict[str, str] = {}
    done: list[str] = []
    blocked: list[str] = []
    where: dict[str, str] = {}
    for e in entries:
        msg = e.message
        if msg is None:
            continue
        if msg.role == "assistant":
            where[e.id] = "the assistant's reply"
            for call in msg.tool_calls:
                pending[call.id] = _call_label(call.name, call.arguments)
            if msg.stop_reason == "error" and msg.error_message:
                blocked.append(f"Model call failed: {shorten(msg.error_message, 240)}")
                where[e.id] = "a failed model call"
        elif msg.role == "user":
            where[e.id] = "the user's message"
        elif msg.role == "toolResult":
            label = pending.pop(msg.tool_call_id or "", None) or (msg.tool_name or "tool")
            where[e.id] = f"{label} output"
            if msg.is_error:
                line = next((ln for ln in msg.text.splitlines() if _ERROR.search(ln)),
                            msg.text.strip().splitlines()[0] if msg.text.strip() else "error")
                blocked.append(f"{label} failed: {shorten(line, 240)}")
            elif any(f.kind != "exit" or f.code for f in find_errors(msg.text)):
                blocked.append(f"{label} reported errors (quoted below)")  # a failing test run
            else:
                done.append(label)
        elif msg.role == "bashExecution" and msg.command and not msg.exclude_from_context:
            label = f"ran `{shorten(msg.command.splitlines()[0], 160)}`"
            where[e.id] = f"`{shorten(msg.command.splitlines()[0], 160)}` output"
            if msg.exit_code not in (None, 0) or msg.cancelled:
                tail = next((ln for ln in reversed((msg.output or "").splitlines())
                             if ln.strip()), "")
                why = "cancelled" if msg.cancelled else f"exit code {msg.exit_code}"
                blocked.append(f"{label} ({why})" + (f": {shorten(tail, 200)}" if tail else ""))
            else:
                done.append(label)
    return done, list(pending.values()), blocked, where


def _assistant_sentences(entries: Sequence[Entry]) -> list[str]:
    out: list[str] = []
    for e in entries:
        if e.message is not None and e.message.role == "assistant":
            for block in e.message.content:
                if isinstance(block, TextBlock) and not is_silent_reply(block.text):
                    out.extend(_sentences(block.text))
    return out


#: Within one source, identifiers that cannot be found again come first (a UUID or an error
#: text is gone once dropped; a path from a directory listing can be listed again).
_CLASS_RANK = {"uuid": 0, "hash": 0, "error": 0, "url": 1, "port": 1, "host": 1,
               "quantity": 1, "command": 2, "number": 2, "path": 3}


def _source_rank(entry: Entry) -> int:
    """What the user wrote matters most, then the agent's words, then what tools printed."""
    role = entry.role
    if role == "user":
        return 0
    if role == "assistant":
        return 1
    if role == "toolResult" and entry.message is not None and not entry.message.is_error:
        return 3
    return 2


#: Identifiers that say nothing a summary needs: timestamps (ISO, epoch seconds or ms),
#: tools' boilerplate ("Successfully wrote 26 bytes", "Changed 572 characters"), a bare
#: count with nothing it counts, and pieces of a ``\n`` escape ("nChecked 3 files").
_NOISE = re.compile(
    r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d\S*|1[5-9]\d{8}(?:\d{3})?|"
    r"(?:successfully\s+)?(?:wrote|written|changed|saved|replaced|edited|updated|created|"
    r"deleted|read|applied|found)\b.*\d.*|~?\d+(?:[.,]\d+)?\s*(?:lines?|bytes?|chars?|"
    r"characters?|files?|items?|tokens?)(?:\s+saved)?|n[A-Z][a-z]+\b.*)$", re.I)
_TOKEN_EDGE = set(" \t\n\"'`()[]{}<>,;")


def whole_token(value: str, haystack: str) -> str:
    """``value`` widened to the whole token it was cut from in ``haystack`` (OpenClaw's
    rule takes ``/orbit/budget_13.py`` out of ``src/orbit/budget_13.py``), trimmed of
    quotes and trailing punctuation; ``value`` itself when it stands alone."""
    at = haystack.find(value)
    if at < 0:
        return value
    start, end = at, at + len(value)
    while start > 0 and haystack[start - 1] not in _TOKEN_EDGE:
        start -= 1
    while end < len(haystack) and haystack[end] not in _TOKEN_EDGE:
        end += 1
    token = trim_identifier(haystack[start:end])
    return token if value in token and len(token) <= 240 else value


def _identifiers(entries: Sequence[Entry], found: Sequence[Identifier],
                 wanted: Sequence[str] = ()) -> tuple[str, ...]:
    """Identifiers to list, most important first, each as a whole token written in the
    entries; ``wanted`` (what an audit found missing) leads."""
    texts = [entry_text(e) for e in entries]
    haystack = "\n".join(texts)
    messages = [t for e, t in zip(entries, texts, strict=True) if e.message is not None]
    # the audit checks the last messages' identifiers: those lead, as whole tokens
    opaque = [*wanted, *extract_opaque_identifiers(
        "\n".join(messages[-AUDIT_RECENT_MESSAGES:]), limit=40)]
    ranked: list[tuple[int, int, int, tuple[str, ...]]] = [
        (-1, 0, n, (whole_token(v, haystack), v)) for n, v in enumerate(opaque)]
    rank = {e.id: _source_rank(e) for e in entries}
    for n, ident in enumerate(found):
        if ident.cls == "error":
            continue  # errors are listed with where they were written
        if _NOISE.match(ident.display) or _NOISE.match(ident.value):
            continue
        best = min((rank.get(i, 2) for i in ident.entry_ids), default=2)
        ranked.append((best, _CLASS_RANK.get(ident.cls, 2), n, (ident.display, ident.value)))
    for n, m in enumerate(_SHORT_HASH.finditer(haystack)):  # git's 7-hex short ids
        ranked.append((2, 0, 100_000 + n, (m.group(0),)))
    out: list[str] = []
    for *_rank, candidates in sorted(ranked):
        for value in candidates:  # with its meaning if that can be quoted, else bare
            verbatim = verbatim_in(value, haystack)
            if verbatim and len(verbatim) <= 240 and "\n" not in verbatim and "`" not in verbatim:
                out.append(verbatim)
                break
    return _dedup(out, fold=False)


def _errors(found: Sequence[Identifier], where: dict[str, str]) -> tuple[str, ...]:
    """One line per error message, verbatim, saying where it was written."""
    out = []
    for ident in found:
        if ident.cls == "error":
            place = where.get(ident.entry_ids[0], "") if ident.entry_ids else ""
            out.append(f"Error in {place}: {ident.display}" if place else
                       f"Error: {ident.display}")
    return tuple(out)


def extract_facts(entries: Sequence[Entry], wanted: Sequence[str] = ()) -> Facts:
    """Every fact kind the templates ask for, from ``entries`` (in file order);
    ``wanted``: identifiers an audit found missing, listed first when the entries hold them."""
    users = _user_texts(entries)
    literal = users[-1] if users else None
    latest = shorten(literal[1], 600) if literal else None
    users = [(i, t) for i, t in users if is_substantive_ask(t)]
    asks = [shorten(t, 600) for _, t in users]
    # the goal: the first real ask, and the latest real one when the literal latest turn
    # (always quoted as the latest request) is a continuation; nothing said twice
    others = [(i, t) for i, t in users if literal is None or i != literal[0]]
    goal = [first_sentences(t) for _, t in ([*others[:1], *others[1:][-1:]])]
    constraints = [shorten(s) for _, t in users for s in _sentences(t) if _CONSTRAINT.search(s)]
    said = _assistant_sentences(entries)
    decisions = [shorten(s) for s in said if _DECISION.search(s)]
    decisions += [shorten(s) for _, t in users for s in _sentences(t)
                  if _DECISION.search(s) and not _CONSTRAINT.search(s)]
    done, in_progress, blocked, where = _progress(entries)
    found = extract_identifiers(entries)
    tail = _assistant_sentences(entries[-12:])
    next_steps = [shorten(s) for s in tail if _NEXT.search(s)]
    embedded = tuple(e.summary for e in entries
                     if e.type in ("compaction", "branch_summary") and e.summary)
    return Facts(
        asks=_dedup(asks), latest_ask=latest, goal=_dedup(goal),
        constraints=_dedup(constraints), decisions=_dedup(decisions), done=_dedup(done),
        in_progress=_dedup(in_progress), blocked=_dedup(blocked),
        next_steps=_dedup(next_steps)[-6:], identifiers=_identifiers(entries, found, wanted),
        errors=_errors(found, where), embedded_summaries=embedded)
