"""The offline provider: a deterministic, extractive summarizer that needs no model.

It fills the selected template from the facts in ``offline_facts`` (each copied from the
entries), merges with a previous summary section by section, puts what matches the user's
focus instructions first (``offline_focus``), and trims the oldest, least important items
first when the budget is tight, saying how many it left out; error messages and focused
items go last. Same input, same output; nothing leaves the machine.
"""

from __future__ import annotations

import math
import re
from itertools import zip_longest

from sessionlens.engine.audit.quality_loop import COPY_IDENTIFIERS
from sessionlens.engine.contract.templates import (
    QUALITY_FEEDBACK_HEAD,
    REQUIRED_SECTIONS,
    SUMMARY_MAX_CHARS,
    TURN_PREFIX_SECTIONS,
)
from sessionlens.engine.errors import ProviderError

from .base import Completion, CompletionRequest, CompletionUsage, DeltaCallback, ProviderProfile
from .offline_facts import Facts, extract_facts
from .offline_focus import Focus, focus_items, parse_focus

__all__ = ["OfflineProvider", "offline_summary"]

Doc = dict[str, list[str]]
_LATEST = "- Latest user request: "
_ADDRESS = "Address the latest user request: "
_ERROR = "- Error"
_NONE = "(none)"
_TAGS = re.compile(r"<(read-files|modified-files)>.*?</\1>", re.S)
#: Slack under the 16000-character cap for notes summarize.py may append.
_MARGIN = 300
#: Headings of one template that mean a section of the other (for carried-over summaries).
_MAP = {
    "structured": {"## Decisions": "## Key Decisions", "## Open TODOs": "### In Progress",
                   "## Constraints/Rules": "## Constraints & Preferences",
                   "## Pending user asks": "## Next Steps", "## Exact identifiers":
                   "## Critical Context"},
    "safeguard": {"## Key Decisions": "## Decisions", "### In Progress": "## Open TODOs",
                  "## Next Steps": "## Open TODOs", "### Blocked": "## Open TODOs",
                  "## Constraints & Preferences": "## Constraints/Rules",
                  "## Critical Context": "## Exact identifiers"},
}
#: Sections whose most important items come first (newest asks, recent identifiers): merges
#: put new asks first and interleave identifier lists; trimming takes from the end. Every
#: other section keeps old items first and loses its oldest first.
_NEWEST_FIRST = ("## Pending user asks", "## Critical Context", "## Exact identifiers",
                 "## Context for Suffix")
#: How readily a section gives up items when over budget (higher goes first). Carried-over
#: sections of a foreign template weigh most; pending asks and constraints least.
_WEIGHT = {"### Done": 2.0, "## Goal": 1.5, "### In Progress": 1.5, "## Early Progress": 1.5,
           "### Blocked": 1.0, "## Critical Context": 1.0, "## Exact identifiers": 1.0,
           "## Context for Suffix": 1.0, "## Key Decisions": 0.8, "## Decisions": 0.8,
           "## Next Steps": 0.8, "## Open TODOs": 0.8, "## Constraints & Preferences": 0.5,
           "## Constraints/Rules": 0.5, "## Pending user asks": 0.5, "## Original Request": 0.3}
_FOREIGN_WEIGHT = 3.0
_LEFT_OUT = re.compile(r"^- \(\d+ more items left out")


def _headings(template: str) -> tuple[str, ...]:
    return TURN_PREFIX_SECTIONS if template == "turn_prefix" else REQUIRED_SECTIONS[template]


def _facts_doc(f: Facts, template: str) -> Doc:
    ids = [f"- `{i}`" for i in f.identifiers]
    errors = [f"- {e}" for e in f.errors]
    latest = [_LATEST + f.latest_ask] if f.latest_ask else []
    if template == "turn_prefix":
        return {"## Original Request": [f"- {a}" for a in f.goal[:1]],
                "## Early Progress": [f"- [x] {d}" for d in f.done]
                + [f"- {b}" for b in f.blocked],
                "## Context for Suffix": [f"- [ ] {p}" for p in f.in_progress] + latest + errors
                + ids}
    if template == "safeguard":
        return {"## Decisions": [f"- {d}" for d in f.decisions],
                "## Open TODOs": [f"- [ ] {p}" for p in f.in_progress]
                + [f"- Blocked: {b}" for b in f.blocked] + [f"- {n}" for n in f.next_steps],
                "## Constraints/Rules": [f"- {c}" for c in f.constraints],
                "## Pending user asks": [f"- {a}" for a in ([f.latest_ask] if f.latest_ask else [])
                                         + list(reversed(f.asks[-5:]))],
                "## Exact identifiers": errors + ids}
    return {"## Goal": [f"- {a}" for a in f.goal] + latest, "## Constraints & Preferences":
            [f"- {c}" for c in f.constraints], "## Progress": [],
            "### Done": [f"- [x] {d}" for d in f.done],
            "### In Progress": [f"- [ ] {p}" for p in f.in_progress],
            "### Blocked": [f"- {b}" for b in f.blocked],
            "## Key Decisions": [f"- {d}" for d in f.decisions],
            "## Next Steps": list(f.next_steps),
            "## Critical Context": errors + ids}


def parse_summary(text: str, template: str) -> Doc:
    """Sections of an existing summary (ours or anyone's) as heading -> item lines."""
    doc: Doc = {}
    current = REQUIRED_SECTIONS["structured"][-1] if template == "structured" else \
        "## Earlier summary"
    mapping = _MAP.get(template, {})
    text = _TAGS.sub("", text)
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if re.match(r"#{1,6}\s+\S", stripped):
            current = mapping.get(stripped, stripped)
            doc.setdefault(current, [])
            continue
        if not stripped or stripped in (_NONE, "---", "No prior history.") or \
                stripped.startswith("**Turn Context"):
            continue
        if current == "## Next Steps":
            stripped = re.sub(r"^(\d+[.)]|[-*])\s+", "", stripped)
        elif not stripped.startswith(("-", "*", "  ")):
            stripped = "- " + stripped
        doc.setdefault(current, []).append(stripped)
    return doc


def _merge(old: Doc, new: Doc) -> Doc:
    """``new`` folded into ``old`` section by section (see ``_NEWEST_FIRST``); the latest-ask
    lines of ``old`` give way to those of ``new``."""
    out: Doc = {}
    replace = any(x.startswith((_LATEST, _ADDRESS)) for items in new.values() for x in items)
    for key in list(old) + [k for k in new if k not in old]:
        before = [x for x in old.get(key, []) if not (replace and x.startswith((_LATEST,
                                                                                _ADDRESS)))]
        after = new.get(key, [])
        if key == "## Pending user asks":
            items = after + before
        elif key in _NEWEST_FIRST:  # both lists run most important first: interleave them
            items = [x for pair in zip_longest(after, before) for x in pair if x is not None]
        else:
            items = before + after
        out[key] = list(dict.fromkeys(items))
    return out




def _render(doc: Doc, template: str, left_out: dict[str, int] | None = None) -> str:
    order = list(_headings(template)) + [k for k in doc if k not in _headings(template)]
    lines: list[str] = []
    for key in order:
        items = doc.get(key, [])
        lines.append(key)
        if key == "## Next Steps":
            items = [f"{n}. {x}" for n, x in enumerate(items, 1)]
        elif key in ("## Critical Context", "## Context for Suffix"):
            items = sorted(items, key=lambda x: not x.startswith(_LATEST))
        if key != "## Progress":
            lines.extend(items or [_NONE])
        if left_out and left_out.get(key):
            lines.append(f"- ({left_out[key]} more items left out to fit the summary budget)")
        lines.append("")
    return "\n".join(lines).strip()


def _victim(items: list[str], key: str, keep: Focus, last_resort: bool) -> int | None:
    """Which item of a section goes next: never the latest-ask line, a left-out count or the
    first goal; error messages and items matching the focus only as a last resort; oldest
    first, except in newest-first sections."""
    order = range(len(items) - 1, -1, -1) if key in _NEWEST_FIRST else range(len(items))
    first_goal = key == "## Goal"
    for i in order:
        x = items[i]
        if x.startswith((_LATEST, _ADDRESS)) or _LEFT_OUT.match(x):
            continue
        if first_goal and not any(not y.startswith((_LATEST, _ADDRESS)) and not _LEFT_OUT.match(y)
                                  for y in items[:i]):
            continue  # the first goal stays
        if not last_resort and (x.startswith(_ERROR) or (keep and keep.matches(x))):
            continue
        return i
    return None


_IDENT_ITEM = re.compile(r"- `([^`]+)`")


def _without_repeats(doc: Doc) -> Doc:
    """The doc minus identifier items whose value other lines already carry verbatim."""
    prose = "\n".join(x for k, items in doc.items() for x in items
                      if not (k in _NEWEST_FIRST and _IDENT_ITEM.fullmatch(x))
                      and not x.startswith((_LATEST, _ADDRESS)))
    out: Doc = {}
    for key, items in doc.items():
        if key in _NEWEST_FIRST:
            items = [x for x in items if not ((m := _IDENT_ITEM.fullmatch(x))
                                              and m.group(1) in prose)]
        out[key] = list(items)
    return out


def _fit(doc: Doc, template: str, limit: int, keep: Focus) -> str:
    """Make the rendering fit ``limit``. First stop listing identifiers that other lines
    already quote; then drop items, always from the section with the most weighted text,
    so no section is emptied while another is still long; errors and focused items only
    once nothing else is left to drop."""
    text = _render(doc, template)
    if len(text) <= limit:
        return text
    left: dict[str, int] = {}
    for key, items in doc.items():  # counts carried from earlier stages join the new ones
        for item in [x for x in items if _LEFT_OUT.match(x)]:
            items.remove(item)
            left[key] = left.get(key, 0) + int(re.findall(r"\d+", item)[0])
    own = set(_headings(template))
    stuck: set[str] = set()
    last_resort = False
    while True:
        visible = _without_repeats(doc)
        text = _render(visible, template, left)
        if len(text) <= limit:
            return text
        chars = {k: sum(map(len, v)) for k, v in visible.items()}
        over = len(text) - limit + 80
        while over > 0:
            weights = {k: n * (_WEIGHT.get(k, 1.0) if k in own else _FOREIGN_WEIGHT)
                       for k, n in chars.items() if k not in stuck and n > 0}
            if not weights:
                if last_resort:
                    return text
                last_resort, stuck = True, set()
                continue
            key = max(weights, key=lambda k: weights[k])
            index = _victim(visible[key], key, keep, last_resort)
            if index is None:
                stuck.add(key)
                continue
            gone = visible[key].pop(index)
            doc[key].remove(gone)
            chars[key] -= len(gone)
            over -= len(gone) + 1
            left[key] = left.get(key, 0) + 1


_ITEM_MARK = re.compile(r"^(?:[-*]|\d+[.)])\s*(?:\[[ x]\]\s*)?(?:Latest user request:\s*)?")


def _item_key(item: str) -> str:
    # case kept: ``...\\BIG`` and ``...\\Big`` are two identifiers
    return " ".join(_ITEM_MARK.sub("", item).replace("`", "").split())


def _once(doc: Doc, template: str) -> Doc:
    """The doc with no line twice: an item an earlier one (in rendering order) already
    says word for word is left out (identifiers that prose quotes go in ``_fit`` when the
    budget is tight, which brings them back when that prose is trimmed); the latest-ask
    line and left-out counts always stay."""
    order = list(_headings(template)) + [k for k in doc if k not in _headings(template)]
    said: set[str] = set()
    out: Doc = {}
    for key in order:
        if key not in doc:
            continue
        kept = []
        for item in doc[key]:
            k = _item_key(item)
            protected = item.startswith((_LATEST, _ADDRESS)) or _LEFT_OUT.match(item)
            if k and not protected and k in said:
                continue
            kept.append(item)
            said.add(k)
        out[key] = kept
    return out


def _focused(doc: Doc, focus: Focus) -> tuple[Doc, bool | None]:
    """Each section with the items matching the focus first; whether any matched (None
    without focus terms)."""
    if not focus:
        return doc, None
    matched = any(focus.matches(x) for items in doc.values() for x in items
                  if not x.startswith((_LATEST, _ADDRESS)))
    return {k: focus.order(v) for k, v in doc.items()}, matched


def _wanted(instructions: str) -> tuple[str, ...]:
    """The identifiers a failed audit's feedback asks a retry to copy (``quality_loop``)."""
    _, _, feedback = instructions.partition(QUALITY_FEEDBACK_HEAD)
    for line in feedback.splitlines():
        if line.startswith(COPY_IDENTIFIERS):
            return tuple(v.strip() for v in line[len(COPY_IDENTIFIERS):].split(", ") if v.strip())
    return ()


def offline_summary(request: CompletionRequest) -> tuple[str, bool | None]:
    """The offline summary for one request, and whether the focus instructions matched
    anything (None when there were none). Pure; the provider only wraps it."""
    src = request.source
    if src is None:
        raise ProviderError("the offline provider needs the entries behind the prompt "
                            "(CompletionRequest.source)", provider="offline")
    template = "turn_prefix" if src.purpose == "turn_prefix" else src.template
    room = SUMMARY_MAX_CHARS - src.reserved_chars - _MARGIN
    limit = max(600, min(request.max_tokens * 4, room))
    doc: Doc = {k: [] for k in _headings(template)}
    if src.purpose == "merge":
        for part in src.parts:
            doc = _merge(doc, parse_summary(part, template))
    else:
        if src.previous_summary:
            doc = _merge(doc, parse_summary(src.previous_summary, template))
        facts = extract_facts(src.entries, _wanted(src.instructions))
        for embedded in facts.embedded_summaries:
            doc = _merge(doc, parse_summary(embedded, template))
        doc = _merge(doc, _facts_doc(facts, template))
        # what the focus names is carried even when no fact mentions it (the audit's
        # focus check requires every focus term of the span)
        present = "\n".join(x for items in doc.values() for x in items)
        carried = focus_items(src.entries, src.instructions, present)
        if carried:
            key = _headings(template)[-1]
            doc[key] = carried + doc.get(key, [])
    focus = parse_focus(src.instructions)
    doc, matched = _focused(_once(doc, template), focus)
    return _fit(doc, template, limit, focus), matched


class OfflineProvider:
    """A ``Provider`` that summarizes extractively, on this machine, deterministically."""

    def __init__(self, profile: ProviderProfile | None = None) -> None:
        self._profile = profile or ProviderProfile(name="offline", kind="offline",
                                                   model="extractive", context_window=1_000_000,
                                                   temperature=None)

    @property
    def profile(self) -> ProviderProfile:
        return self._profile

    def __repr__(self) -> str:
        return f"OfflineProvider(name={self._profile.name!r})"

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        import asyncio  # here, not at import time: the CLI would pay for it on every call

        await asyncio.sleep(0)  # a cancellation point, like any real provider call
        text, matched = offline_summary(request)
        if on_delta is not None:
            on_delta(text)
        usage = CompletionUsage(input_tokens=math.ceil(request.prompt_chars / 4),
                                output_tokens=math.ceil(len(text) / 4), cost=0.0)
        return Completion(text, usage, self._profile.name, self._profile.model or "extractive",
                          "stop", focus_matched=matched)
