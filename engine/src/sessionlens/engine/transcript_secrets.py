"""The secrets of one transcript, found once in context, for every face that shows its text.

``find_secrets`` needs a secret's context (``DEEPSEEK_KEY 9f86…``); the same value later
shows without it: as a dropped identifier in an export, a trace or search snippet, a
search-index chunk cut after the name. Each face blanks the values found here as well as
what it finds itself (``secrets.blank_values``).
"""

from __future__ import annotations

from collections.abc import Iterable

from sessionlens.engine.contract.identifiers import entry_text
from sessionlens.engine.load.formats.entry_chain import json_text
from sessionlens.engine.model import Entry, ThinkingBlock, Transcript
from sessionlens.engine.secrets import secret_values

__all__ = ["entry_secret_values", "transcript_secret_values"]


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
