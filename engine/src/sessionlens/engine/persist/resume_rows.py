"""What pi and OpenClaw restore when they resume a path (the model and thinking level), and
the state rows a successor adds so that its path resolves as the original's did (see the
"Resume state" paragraph of ``successor``). Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sessionlens.engine.model import Entry

from .lines import new_entry_id

__all__ = ["ResumeState", "restore_rows", "resume_state"]


@dataclass(frozen=True, slots=True)
class ResumeState:
    """What pi / OpenClaw restore when they resume a path: (provider, model id) and level."""

    model: tuple[str | None, str | None] | None
    thinking_level: str


def resume_state(path: Iterable[Entry]) -> ResumeState:
    """The model and thinking level a path resumes with (``buildSessionContext``'s scan)."""
    model: tuple[str | None, str | None] | None = None
    level = "off"
    for e in path:
        if e.type == "thinking_level_change":
            level = e.thinking_level or "off"
        elif e.type == "model_change":
            model = (e.provider, e.model_id)
        elif e.type == "message" and e.message is not None and e.message.role == "assistant":
            model = (e.message.provider, e.message.model)
    return ResumeState(model, level)


def restore_rows(original: ResumeState, kept: ResumeState, parent: str | None, stamp: str,
                  taken: set[str]) -> list[dict[str, Any]]:
    """State rows (each the child of the previous) that make ``kept`` resolve to ``original``."""
    rows: list[dict[str, Any]] = []
    if original.model != kept.model and original.model is not None and any(original.model):
        provider, model_id = original.model
        rows.append({"type": "model_change", "provider": provider, "modelId": model_id})
    if original.thinking_level != kept.thinking_level:
        rows.append({"type": "thinking_level_change", "thinkingLevel": original.thinking_level})
    out = []
    for row in rows:
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        out.append({"type": row.pop("type"), "id": entry_id, "parentId": parent,
                    "timestamp": stamp, **row})
        parent = entry_id
    return out
