"""``sessionlens mcp [--root DIR ...]``: the recall server for agents (MCP over stdio).

An agent that registered it (``claude mcp add sessionlens -- sessionlens-cli mcp``, or a
Codex ``[mcp_servers.sessionlens]`` table) can search every session in scope, see what each
compaction lost and read the original text back; ``engine.recall`` holds the tools. It
answers only about the agents' own session folders and the folders added to the search,
or with ``--root`` only those; it never writes but its search index under the cache.
``--print-config AGENT`` prints the registration instead of serving.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
from pathlib import Path

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.errors import ConfigError, LoadError

from .args import add_basedir_arg
from .output import emit_lines

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mcp", help="serve the recall tools to agents (Model Context "
                                   "Protocol over stdio, read-only)")
    p.add_argument("--root", action="append", type=Path, default=[], metavar="DIR",
                   help="answer only about sessions under DIR (repeatable; default: the "
                        "agents' own folders and the search's added folders)")
    add_basedir_arg(p)
    p.add_argument("--print-config", choices=("claude-code", "codex"), metavar="AGENT",
                   help="print how to register this server with AGENT (claude-code or "
                        "codex) and exit; nothing is changed")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for root in args.root:
        if not root.exists():
            raise LoadError(root, "no such file or folder")
    if args.print_config:
        from sessionlens.engine.recall.registration import registration_for

        path = os.environ.get("PYTHONPATH")
        emit_lines(registration_for(args.print_config, args.root, args.basedir,
                                    env={"PYTHONPATH": path} if path else None).lines())
        return 0
    try:
        from sessionlens.engine.recall.mcp_adapter import serve_stdio
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("mcp", "mcp_types", "pydantic"):
            raise
        raise ConfigError("sessionlens mcp needs the MCP SDK: pip install "
                          "'sessionlens-engine[mcp]' (or pip install mcp)") from None
    from sessionlens.engine.recall.recall_service import Recall

    recall = Recall(user_folders(args.basedir).cache, args.root)
    print(f"sessionlens mcp: serving {len(recall.scope.roots)} folder(s): "
          f"{recall.scope.describe()}", file=sys.stderr)
    gc.enable()  # a one-shot command runs without the collector; a server lives for hours
    threading.Thread(target=recall.warm_index, name="recall-index", daemon=True).start()
    serve_stdio(recall)
    return 0
