"""What a summary dropped, and a recovery pack to give it back to the agent.

Users lose paths, commands and measured numbers far more often than decisions
(users-and-peers.md §2C); a list of exactly which specifics vanished, each linked to the
entries that held it, turns "my agent forgot" into something fixable. The recovery pack is
the fix: a paste-able Markdown addendum and a ready ``/compact Focus on ...`` instruction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sessionlens.engine.contract.identifiers import (
    IDENTIFIER_CLASSES,
    Identifier,
    IdentifierClass,
    summary_contains,
)

__all__ = [
    "CLASS_TITLES",
    "DroppedItem",
    "RecoveryPack",
    "build_recovery_pack",
    "find_dropped",
    "group_by_class",
]

#: Plural headings for each class, used in the addendum and in reports.
CLASS_TITLES: dict[str, str] = {
    "path": "File paths", "command": "Commands", "error": "Error messages", "url": "URLs",
    "uuid": "UUIDs", "hash": "Hashes and hex ids", "host": "Hosts and ports",
    "port": "Ports", "quantity": "Numbers with units", "number": "Long numbers",
}
_INSTRUCTION_NAMES: dict[str, str] = {
    "path": "paths", "command": "commands", "error": "errors", "url": "URLs", "uuid": "UUIDs",
    "hash": "ids", "host": "hosts", "port": "ports", "quantity": "figures", "number": "numbers",
}


@dataclass(frozen=True, slots=True)
class DroppedItem:
    """An entity of the summarized span that the summary does not carry."""

    value: str
    cls: IdentifierClass
    #: Entries of the span that mention it, in file order.
    entry_ids: tuple[str, ...]
    #: What it meant where it was written ("p99 latency is 175 ms"); "" when the value
    #: speaks for itself. A quantity counts as dropped when this meaning is gone.
    context: str = ""

    @property
    def display(self) -> str:
        """The value with its context, as a report names it."""
        return self.context or self.value

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON data (the ``dropped`` items of audit output and exports)."""
        out: dict[str, Any] = {"value": self.value, "class": self.cls,
                               "entry_ids": list(self.entry_ids)}
        if self.context:
            out["context"] = self.context
        return out


@dataclass(frozen=True, slots=True)
class RecoveryPack:
    """Everything needed to hand the lost specifics back to an agent."""

    #: Markdown listing every dropped item by class, with the entries it came from.
    addendum: str
    #: ``/compact Focus on ...`` naming as many items as fit; says "and N more" otherwise.
    instruction: str
    #: How many dropped items there were in total.
    total: int
    #: How many of them the instruction names (all of them are in the addendum).
    named_in_instruction: int

    @property
    def omitted_from_instruction(self) -> int:
        return self.total - self.named_in_instruction


def find_dropped(summary: str, identifiers: Iterable[Identifier], *,
                 everything: bool = False) -> tuple[DroppedItem, ...]:
    """Every identifier the summary lacks (with its meaning, for quantities and exit codes),
    grouped by class (report order), first seen first. ``everything``: the summary is no
    summary at all (a fallback placeholder), so nothing in it counts as kept."""
    missing = [i for i in identifiers
               if everything or not summary_contains(summary, i.value, i.cls, i.meaning)]
    rank = {cls: n for n, cls in enumerate(IDENTIFIER_CLASSES)}
    missing.sort(key=lambda i: rank.get(i.cls, len(rank)))  # stable: keeps first-seen order
    return tuple(DroppedItem(i.value, i.cls, i.entry_ids, i.context) for i in missing)


def group_by_class(items: Iterable[DroppedItem]) -> dict[str, tuple[DroppedItem, ...]]:
    """Items per class, classes in report order, empty classes left out."""
    groups: dict[str, list[DroppedItem]] = {}
    for item in items:
        groups.setdefault(item.cls, []).append(item)
    order = [c for c in IDENTIFIER_CLASSES if c in groups] + [c for c in groups if c not in IDENTIFIER_CLASSES]
    return {c: tuple(groups[c]) for c in order}


def md_code(value: str) -> str:
    """Inline code that survives backticks inside the value."""
    fence = "`"
    while fence in value:
        fence += "`"
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def _where(entry_ids: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(entry_ids[:limit])
    extra = len(entry_ids) - limit
    return f"{shown} (+{extra} more)" if extra > 0 else shown


def _addendum(groups: dict[str, tuple[DroppedItem, ...]], total: int, source: str) -> str:
    lines = ["## Recovered specifics (dropped by the last compaction)", ""]
    if source:
        lines += [f"Source: {source}", ""]
    if total == 0:
        lines.append("Nothing was dropped: every specific of the summarized span is in the summary.")
        return "\n".join(lines) + "\n"
    lines.append(f"These {total} specifics were in the summarized history but not in its summary:")
    for cls, items in groups.items():
        lines += ["", f"### {CLASS_TITLES.get(cls, cls)} ({len(items)})"]
        for item in items:
            where = f" (entries {_where(item.entry_ids)})" if item.entry_ids else ""
            said = f": {item.context}" if item.context else ""
            lines.append(f"- {md_code(item.value)}{said}{where}")
    return "\n".join(lines) + "\n"


def _instruction(groups: dict[str, tuple[DroppedItem, ...]], total: int,
                 max_chars: int) -> tuple[str, int]:
    head = "/compact Focus on "
    if total == 0:
        return head + "the current task; keep every exact path, command and identifier.", 0
    # Round-robin over classes so a long list of one class cannot crowd out the others.
    queues = {cls: list(items) for cls, items in groups.items()}
    picked: dict[str, list[str]] = {cls: [] for cls in groups}
    named = 0

    def render(count_left: int) -> str:
        parts = [f"{_INSTRUCTION_NAMES.get(c, c)} {', '.join(v)}" for c, v in picked.items() if v]
        text = head + "keeping these exact specifics: " + "; ".join(parts)
        if count_left:
            text += f"; and {count_left} more (see the recovery addendum)"
        return text + "."

    progress = True
    while progress and named < total:
        progress = False
        for cls, queue in queues.items():
            if not queue:
                continue
            value = " ".join(queue.pop(0).display.split())
            progress = True
            picked[cls].append(value)
            if len(render(total - named - 1)) > max_chars:
                picked[cls].pop()  # too long to name here; the addendum still lists it
                continue
            named += 1
    return render(total - named), named


def build_recovery_pack(dropped: Sequence[DroppedItem], *, max_instruction_chars: int = 1200,
                        source: str = "") -> RecoveryPack:
    """The addendum (complete) and the ``/compact`` instruction (bounded, never silent).

    ``source`` names where the items came from (e.g. "session.jsonl, compaction d29e9102")."""
    groups = group_by_class(dropped)
    total = len(dropped)
    instruction, named = _instruction(groups, total, max(200, max_instruction_chars))
    return RecoveryPack(
        addendum=_addendum(groups, total, source),
        instruction=instruction,
        total=total,
        named_in_instruction=named,
    )
