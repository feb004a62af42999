"""``sessionlens compact-for-agent`` and ``sessionlens hook AGENT EVENT``: the channel.

Both read one JSON object on stdin and answer on stdout (see ``integrate``'s docstring for
why one CLI call per compaction). ``compact-for-agent`` answers JSON (``{"ok": ...}``) and
always exits 0 unless its input is not JSON: the answer says whether the agent should use
SessionLens's summary. ``hook claude-code pre-compact`` prints the added instructions
(exit 0) or blocks (exit 2); ``post-compact`` audits and journals. ``hook codex post-compact``
audits the summary Codex wrote and journals it (``pre-compact`` does nothing: Codex's hooks
are notify-only).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.agents.releases import AGENTS, load_module
from sessionlens.engine.cli.args import add_basedir_arg
from sessionlens.engine.errors import ConfigError

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("compact-for-agent",
                       help="compact for an agent's integration (JSON on stdin and stdout)")
    add_basedir_arg(p)
    p.set_defaults(func=run_compact)
    h = sub.add_parser("hook", help="answer an agent's compaction hook (JSON on stdin)")
    h.add_argument("agent", choices=tuple(k for k, r in AGENTS.items() if r.hooks))
    h.add_argument("event", choices=("pre-compact", "post-compact"))
    add_basedir_arg(h)
    h.set_defaults(func=run_hook)


def _stdin_json() -> dict[str, Any]:
    text = sys.stdin.read()
    try:
        obj = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise ConfigError(f"<stdin>:{exc.lineno}: not JSON: {exc.msg}") from exc
    if not isinstance(obj, dict):
        raise ConfigError("<stdin>:1: expected a JSON object")
    return obj


def run_compact(args: argparse.Namespace) -> int:
    from sessionlens.engine.integrate.agent_compaction import compact_for_agent

    answer = compact_for_agent(_stdin_json(), user_folders(args.basedir))
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0


def run_hook(args: argparse.Namespace) -> int:
    hooks_module = AGENTS[args.agent].hooks
    assert hooks_module is not None  # argparse offers only agents with hooks
    hooks = load_module(hooks_module)
    payload = _stdin_json()
    folders = user_folders(args.basedir)
    if args.agent == "claude-code":
        fn = hooks.pre_compact if args.event == "pre-compact" else hooks.post_compact
        answer = fn(payload, folders)
    else:
        answer = hooks.notify(args.event, payload, folders)
    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    code: int = answer.code
    return code
