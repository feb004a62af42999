"""Why Gemini CLI compressed: automatically, or because the user asked (``/compress``).

The chat file does not say. Gemini CLI 0.61's own test (``ChatCompressionService.compress``)
does: an automatic compression runs only when the last prompt's token count reaches
``model.compressionThreshold`` (settings; default 0.5) times ``tokenLimit(model)``
(1,048,576 for the Gemini models, 256,000 for Gemma 4); a forced one (``/compress``) runs
below it too. So a compression whose context before it (what Gemini last reported, or the
percentage its notice gives; for a resumed chat with nothing reported since, Gemini's own
estimate of the history) reached that share is ``auto``, one below it ``manual``.

The share comes from the settings Gemini read: the user's ``~/.gemini/settings.json`` (the
chat lies in ``~/.gemini/tmp/<project>/chats/``), then the project's
``<cwd>/.gemini/settings.json``, which wins. A chat outside a Gemini home (a copied file)
gets no trigger: the settings are unknown, and the default could call an automatic
compression manual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from sessionlens.engine.load.formats.entry_chain import Chain, as_dict, freeze
from sessionlens.engine.model import Entry

__all__ = ["DEFAULT_SHARE", "compression_share", "estimate", "mark_triggers", "token_limit"]

DEFAULT_SHARE = 0.5
_GEMMA_4 = frozenset({"gemma-4-31b-it", "gemma-4-26b-a4b-it"})


def token_limit(model: str | None) -> int:
    """Gemini CLI 0.61 ``tokenLimit(model)``."""
    return 256_000 if model in _GEMMA_4 else 1_048_576


def _share_in(place: Path) -> float | None:
    try:
        value = as_dict(as_dict(orjson.loads(place.read_bytes())).get("model")).get(
            "compressionThreshold")
    except (OSError, ValueError):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
        return float(value)
    return None


def compression_share(path: Path, cwd: str | None) -> tuple[float, str] | None:
    """(share, where it comes from) for a chat at ``path``; None outside a Gemini home."""
    parents = path.absolute().parents
    if len(parents) < 4 or parents[2].name != "tmp" or parents[3].name != ".gemini":
        return None
    found: tuple[float, str] = (DEFAULT_SHARE, "Gemini CLI's default compressionThreshold")
    places = [parents[3] / "settings.json"]
    if cwd:
        places.append(Path(cwd) / ".gemini" / "settings.json")
    for place in places:
        share = _share_in(place)
        if share is not None:
            found = (share, f"model.compressionThreshold in {place}")
    return found


def estimate(text: str) -> int:
    """Gemini CLI's ``estimateTokenCountSync`` for text: 0.25 per ASCII character, 1.3 per
    other character."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return int(ascii_chars * 0.25 + (len(text) - ascii_chars) * 1.3)


def _trigger(entry: Entry, model: str | None, share: float,
             estimated: int) -> tuple[str, str]:
    """(``auto`` or ``manual``, what decided it): the notice's percentage, else the context
    Gemini last reported before it, else (a resumed chat, nothing reported since) Gemini's
    estimate of the history it held."""
    pct = entry.extra.get("percent_before")
    if isinstance(pct, int):
        return ("auto" if pct >= share * 100 else "manual"), f"the notice's {pct}%"
    reported = entry.tokens_before is not None
    before = entry.tokens_before if entry.tokens_before is not None else estimated
    what = f"{before:,} tokens {'reported' if reported else 'as Gemini estimates the history'}"
    return ("auto" if before >= share * token_limit(model) else "manual"), what


def mark_triggers(chain: Chain, path: Path, cwd: str | None) -> None:
    """Give each compaction of ``chain`` its trigger (module docstring), in place."""
    found = compression_share(path, cwd)
    if found is None:
        return
    share, source = found
    model: str | None = None
    held = 0     # Gemini's estimate of the history since the last compaction
    for at, entry in enumerate(chain.entries):
        if entry.message is not None:
            model = entry.message.model or model
            held += estimate(entry.message.text)
        if entry.type != "compaction":
            continue
        trigger, what = _trigger(entry, model, share, held)
        held = estimate(entry.summary or "")
        threshold = int(share * token_limit(model))
        extra: dict[str, Any] = {**entry.extra, "trigger": trigger, "trigger_source": (
            f"context before ({what}) {'at or above' if trigger == 'auto' else 'below'} "
            f"{share:g} of {token_limit(model):,} = {threshold:,} tokens ({source})")}
        chain.update(at, extra=freeze(extra))
