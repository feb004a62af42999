"""A small machine of sessions for the search tests: two OpenClaw agents and a Claude Code
project, each file holding filler turns and one planted fact (written with the shared
builders ``fixtures.session_files.SessionFile`` and ``fixtures.agent_lines``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures import agent_lines as cc
from fixtures.session_files import SessionFile
from sessionlens.engine.search.search_index import SearchIndex

FILLER = ("We read the module and ran the linters; nothing stood out. The build passed on "
          "the second try after clearing the cache. ")


@dataclass
class Machine:
    home: Path
    index: SearchIndex
    #: fact name -> (file, entry id)
    facts: dict[str, tuple[Path, str]]

    @property
    def dirs(self) -> list[Path]:
        return [self.home / ".openclaw" / "agents", self.home / ".claude" / "projects"]


def openclaw_session(path: Path, fact: str, *, turns: int = 30) -> tuple[Path, str]:
    """A session with ``turns`` filler turns around one user entry stating ``fact``."""
    s = SessionFile()
    planted = ""
    for n in range(turns):
        if n == turns // 2:
            planted = s.user(fact)
        else:
            s.user(f"turn {n}: {FILLER * 3}")
        s.assistant(f"answer {n}: {FILLER * 2}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return s.write(path), planted


def claude_code_session(path: Path, fact: str) -> tuple[Path, str]:
    lines = [cc.user("u1", None, "hello there, please look at the failing build"),
             cc.asst("a1", "u1", [{"type": "text", "text": FILLER}]),
             cc.user("u2", "a1", fact),
             cc.asst("a2", "u2", [{"type": "text", "text": "noted " + FILLER}], mid="m2")]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cc.jl(*lines))
    return path, "u2"


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    home = tmp_path / "home"
    facts = {
        "db": openclaw_session(home / ".openclaw/agents/main/sessions/a1.jsonl",
                               "We decided the billing database listens on port 6543 "
                               "behind pgbouncer-eu7."),
        "error": openclaw_session(home / ".openclaw/agents/ops/sessions/b2.jsonl",
                                  "The deploy failed with ECONNRESET from "
                                  "queue-worker-9f3a1c77 at 03:14."),
        "cc": claude_code_session(home / f".claude/projects/-w-proj/{cc.CC_SID}.jsonl",
                                  "Remember the feature flag is called zebra_canary_rollout."),
    }
    m = Machine(home, SearchIndex(tmp_path / "cache" / "search"), facts)
    m.index = SearchIndex(tmp_path / "cache" / "search", session_dirs=lambda: m.dirs)
    return m
