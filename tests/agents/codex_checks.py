"""What the Codex differential tests hold a rollout against (shared by the reading, rule and
successor tests): the requests Codex 0.171.0 sent, and the rollout cut where it sent them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessionlens.engine.agents.codex.items import CONTEXT_PREFIXES
from sessionlens.engine.load.context_text import context_texts
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/agents/codex-0.171.0/scenario"


def rollout_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def _is_typed_user(obj: dict[str, Any]) -> bool:
    p = obj.get("payload") or {}
    if obj.get("type") != "response_item" or p.get("type") != "message" or p.get("role") != "user":
        return False
    text = "".join(c.get("text", "") for c in p.get("content") or [])
    return not text.lstrip().startswith(CONTEXT_PREFIXES)


def cuts_after_compactions(path: Path) -> list[int]:
    """For each ``compacted`` line, the number of lines up to and including the first user
    message typed after it: the rollout as it stood when Codex sent its next request."""
    lines = rollout_lines(path)
    out = []
    for i, obj in enumerate(lines):
        if obj["type"] == "compacted":
            j = next(k for k in range(i + 1, len(lines)) if _is_typed_user(lines[k]))
            out.append(j + 1)
    return out


def load_prefix(path: Path, n_lines: int, where: Path) -> Transcript:
    """The first ``n_lines`` lines of the rollout, loaded from a copy under ``where`` (in a
    Codex home of its own with the original's ``config.toml``, when it has one)."""
    config = path.parents[4] / "config.toml" if len(path.parents) > 4 else None
    folder = where
    if config is not None and config.is_file():
        folder = where / "sessions" / path.parents[2].name / path.parents[1].name / \
            path.parent.name
        where.mkdir(parents=True, exist_ok=True)
        (where / "config.toml").write_bytes(config.read_bytes())
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / path.name
    copy.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:n_lines]))
    return load_transcript(copy)


def compaction_output_lines(path: Path) -> list[int]:
    """0-based line numbers of the summarizing calls' answers (``compaction_output``): the
    rollout before one is the history Codex sent that compaction request."""
    return [i for i, o in enumerate(rollout_lines(path))
            if (o.get("metadata") or {}).get("compaction_output")]


def replay_matches(transcript: Transcript, sent: list[dict[str, Any]]) -> list[str]:
    """Differences between SessionLens's replayed context and a request's input ([] = equal)."""
    mine = [dict(c) for c in context_texts(transcript)]
    problems = [f"SessionLens gives {len(mine)} items, Codex sent {len(sent)}"] \
        if len(mine) != len(sent) else []
    for k, (a, b) in enumerate(zip(mine, sent, strict=False)):
        if a != b:
            problems.append(f"item {k}: SessionLens {a['role']} {a['text'][:60]!r}, "
                            f"Codex {b['role']} {b['text'][:60]!r}")
    return problems
