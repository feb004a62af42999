"""Codex's hook trust: why SessionLens's PreCompact/PostCompact hooks did not fire, and the fix.

Codex 0.171.0 runs a hook from the user's ``hooks.json`` (or ``[hooks]`` of config.toml) only
once it is *trusted*: ``codex app-server``'s ``hooks/list`` reports a new hook as
``"trustStatus": "untrusted"``, the TUI asks "Hooks need review before they can run ... Trust
all and continue / Continue without trusting (hooks won't run)", and ``codex exec`` (which
has no such dialog) runs it only with ``--dangerously-bypass-hook-trust``. The trust lives
in the user's config.toml::

    [hooks.state."<canonical path of hooks.json>:<event>:<group>:<handler>"]
    trusted_hash = "sha256:<hex>"

where ``<event>`` is the snake-case event (``pre_compact``) and the hash is Codex's
``version_for_toml`` of the hook's normalized identity: SHA-256 of the compact JSON, keys
sorted, of ``{"event_name", "matcher", "hooks": [{"type": "command", "command", "timeout",
"async"}]}`` (fields Codex leaves unset are absent). Checked against 0.171.0: the hashes
computed here equal ``hooks/list``'s ``currentHash``, and with them in config.toml the hooks
(PreCompact and PostCompact alike) ran for a manual (app-server) and an automatic (``exec``)
compaction
(tests/agents/test_codex_hooks.py). A changed command makes the hook "modified" (untrusted
again), so the integration writes the trust for exactly the commands it installs.

``sessionlens integrate codex`` asks before it writes anything (``--dry-run`` shows this
block), and it trusts only its own hook: the same record Codex's own review writes when
the user trusts them there.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessionlens.engine.errors import ConfigError

__all__ = ["BEGIN", "END", "hook_hash", "ours_in", "trust_block", "with_trust",
           "without_trust"]

BEGIN = ("# >>> sessionlens: Codex runs a hook only once it is trusted; this is the trust "
         "for SessionLens's compaction hook")
END = "# <<< sessionlens"
_BLOCK = re.compile(r"\n*^# >>> sessionlens:.*?^# <<< sessionlens[^\n]*\n?", re.M | re.S)
#: hooks.json's event names and Codex's snake-case keys.
EVENTS = (("PreCompact", "pre_compact"), ("PostCompact", "post_compact"))


def hook_hash(event_key: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """Codex's trust hash of one command hook (its ``currentHash`` in ``hooks/list``)."""
    normalized: dict[str, Any] = {"type": "command", "command": str(handler["command"]),
                                  "timeout": int(handler.get("timeout") or 600),
                                  "async": bool(handler.get("async", False))}
    if handler.get("statusMessage"):
        normalized["statusMessage"] = str(handler["statusMessage"])
    identity: dict[str, Any] = {"event_name": event_key, "hooks": [normalized]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def ours_in(hooks_json: dict[str, Any], is_ours: Any) -> Iterator[tuple[str, int, int, str]]:
    """(event key, group index, handler index, hash) of each of our handlers in hooks.json."""
    found = hooks_json.get("hooks")
    hooks: dict[str, Any] = found if isinstance(found, dict) else {}
    for event, key in EVENTS:
        for gi, group in enumerate(hooks.get(event) or []):
            if not isinstance(group, dict) or not is_ours(group):
                continue
            for hi, handler in enumerate(group.get("hooks") or []):
                if isinstance(handler, dict) and handler.get("type") == "command":
                    yield key, gi, hi, hook_hash(key, group.get("matcher"), handler)


def trust_block(hooks_file: Path, entries: list[tuple[str, int, int, str]]) -> str:
    """The config.toml block trusting ``entries`` of ``hooks_file`` (Codex keys the trust by
    the canonical path: a symlinked CODEX_HOME is resolved)."""
    where = str(hooks_file.resolve())
    lines = [BEGIN]
    for key, gi, hi, digest in entries:
        lines += [f"[hooks.state.{json.dumps(f'{where}:{key}:{gi}:{hi}')}]",
                  f"trusted_hash = {json.dumps(digest)}"]
    return "\n".join([*lines, END]) + "\n"


def without_trust(text: str) -> str:
    """``text`` without SessionLens's trust block."""
    return _BLOCK.sub("\n", text).rstrip("\n") + "\n" if _BLOCK.search(text) else text


def with_trust(path: Path, text: str, block: str) -> str:
    """``text`` (config.toml, our old block already out) with ``block`` at its end; refuses
    (ConfigError) a result Codex could not read, e.g. a key the user already trusts
    differently."""
    if not block:
        return text
    out = text.rstrip("\n") + ("\n\n" if text.strip() else "") + block
    try:
        tomllib.loads(out)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: adding the trust of SessionLens's hooks would make it "
                          f"unreadable ({exc}); trust them in Codex (/hooks) instead") from exc
    return out
