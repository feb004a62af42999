"""The secrets of one transcript, found once in context, for every face that shows its text.

``find_secrets`` needs a secret's context (``DEEPSEEK_KEY 9f86…``); the same value later
shows without it: as a dropped identifier in an export, a trace or search snippet, a
search-index chunk cut after the name. Each face blanks the values found here as well as
what it finds itself (``secrets.blank_values``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sessionlens.engine.contract.identifiers import entry_text
from sessionlens.engine.load.formats.entry_chain import json_text
from sessionlens.engine.model import Entry, ThinkingBlock, Transcript
from sessionlens.engine.secrets import find_secrets, redact

__all__ = ["blank_values", "blanked", "entry_secret_values", "secret_values",
           "transcript_secret_values"]


def _texts(entries: Iterable[Entry]) -> Iterable[str]:
    for entry in entries:
        yield entry_text(entry)
        if entry.summary:
            yield entry.summary
        if entry.message is not None:
            yield from (b.thinking for b in entry.message.content
                        if isinstance(b, ThinkingBlock) and b.thinking)
            # arguments with their names: the readable text keeps only the values, and a
            # name (``app_password``) is what says a value is a credential
            for call in entry.message.tool_calls:
                yield json_text(call.arguments)


def entry_secret_values(entries: Iterable[Entry]) -> dict[str, str]:
    """Value -> kind of every secret in these entries' text, thinking and summaries."""
    return secret_values(_texts(entries))


def transcript_secret_values(transcript: Transcript) -> dict[str, str]:
    """``entry_secret_values`` of every entry of the transcript."""
    return entry_secret_values(transcript.entries)


#: A value found in context is blanked wherever else it shows only from this length on
#: (shorter ones are ordinary words too often: a ``"token": "sent"`` must not blank "sent").
_SEEN_MIN = 8


def secret_values(texts: Iterable[str]) -> dict[str, str]:
    """Value -> kind of every secret ``find_secrets`` sees in ``texts`` where its context
    names it (``DEEPSEEK_KEY 9f86…``, ``"app_password": "…"``), so a face can blank the
    same value where it shows without that context: a dropped-identifier list, a trace or
    search snippet, an index chunk cut after the name (issue 39 items 2 and 15)."""
    seen: dict[str, str] = {}
    for text in texts:
        for f in find_secrets(text):
            value = text[f.start:f.end]
            if len(value.strip()) >= _SEEN_MIN:
                seen.setdefault(value, f.kind)
    return seen


def blank_values(text: str, values: Mapping[str, str] | None = None) -> tuple[str, int]:
    """``text`` with its own findings and every value of ``values`` (``secret_values``)
    replaced by ``[REDACTED:<kind>]``, and how many were replaced. For what is shown or
    stored, not sent: no run numbering, so the same text always reads the same."""
    found = find_secrets(text)
    out = redact(text, found) if found else text
    count = len(found)
    for value, kind in (values or {}).items():
        if value in out:
            count += out.count(value)
            out = out.replace(value, f"[REDACTED:{kind}]")
    return out, count


def blanked(text: str, values: Mapping[str, str] | None = None) -> str:
    """``blank_values`` without the count."""
    return blank_values(text, values)[0]
