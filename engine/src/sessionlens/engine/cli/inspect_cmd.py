"""``sessionlens inspect FILE``: what a transcript holds and what the model sees of it.

Counting rules (DESIGN.md): ``entries`` leaves out the header; ``by_type`` and ``by_role``
count the whole file (every branch); ``active_path_length`` is the path leaf -> root;
``context`` is the replayed context as ``{role, text}`` items in the order the model sees
them (a compaction gives its ``systemMessage``, when pi 1.6 stored one, then its summary; a
``context_edit`` shows its replacement, and the entries it hides are absent), and
``context_messages`` is its length;
unreadable lines appear only under ``diagnostics``.

Tokens: the replayed context is always counted exactly; the rest of the file only with
``--file-tokens`` (``tokens.file.counted`` says which, and an uncounted figure is null, not
0). Exact counts are remembered in the cache folder (``--basedir`` moves it), so a file
opened again, or grown, tokenizes only what is new; a file opened again unchanged, with the
same options and settings, is answered from the kept answer (``report_cache``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.agents.claude_code.records import last_cost
from sessionlens.engine.lineage.compact_subagent import compaction_subagent_of
from sessionlens.engine.load.context_text import context_texts
from sessionlens.engine.load.formats.catalog import agent_name, gap_text
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.pruning_delay import pruning_delay
from sessionlens.engine.tokens.count_cache import CountCache
from sessionlens.engine.tokens.count_worker import CountWorker
from sessionlens.engine.tokens.counts import (
    ENCODING_NAMES,
    count_context_tokens,
    count_tokens,
    use_count_cache,
)
from sessionlens.engine.tokens.outside import outside_transcript, recorded_context
from sessionlens.engine.tokens.text_counter import use_count_worker
from sessionlens.engine.tokens.token_report import TokenReport
from sessionlens.engine.tokens.tokenizer import use_tokenizer_folder

from .args import add_basedir_arg
from .flush_views import (
    add_flush_arguments,
    flush_report,
    memory_flush_json,
    memory_flush_lines,
    resolved_settings_for,
)
from .output import emit_json, emit_lines, keep_until_exit, warnings_given
from .report_cache import ReportCache
from .trigger_views import pruning_json

__all__ = ["register", "run", "inspect_summary"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("inspect", help="summarize a transcript (entries, path, context, tokens)")
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    add_flush_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--encoding", default="o200k_base", choices=ENCODING_NAMES,
                   help="tokenizer for exact counts (default: o200k_base)")
    p.add_argument("--file-tokens", action="store_true",
                   help="also count every entry of the file exactly, not only the context")
    p.add_argument("--fresh", action="store_true",
                   help="work the answer out again even when the same file, options and "
                        "settings were inspected before (the kept answer is replaced)")
    add_basedir_arg(p)
    p.set_defaults(func=run)


def _tokens(t: Transcript, report: TokenReport, cache: CountCache | None) -> dict[str, Any]:
    """The ``tokens`` object: the context's three numbers, then what is known of the file."""
    recorded = recorded_context(t, report)
    gap = outside_transcript(t, report)
    return {
        "encoding": report.encoding,
        "reported_context": report.reported_context,
        "exact": report.exact_context,
        # measured where the file records the request of the reported turn (Claude Code
        # 2.1.3xx): that request's exact count minus the replayed context before the turn
        "outside_transcript": recorded.outside_transcript if recorded is not None else gap,
        "outside_transcript_source": ("measured" if recorded is not None
                                      else None if gap is None else "estimated"),
        "recorded_context": None if recorded is None else {
            "request_id": recorded.request_id, "line": recorded.line,
            "exact": recorded.exact, "system": recorded.system, "tools": recorded.tools,
            "messages": recorded.messages, "message_count": recorded.message_count,
            "tool_names": list(recorded.tool_names)},
        "estimate": report.estimate_context,
        "estimate_openclaw": report.estimate_context_openclaw,
        "agent_rule": report.agent_rule,
        "agent_estimate": report.estimate_context_agent,
        "scope": report.scope,
        "file": {
            "counted": report.complete,
            "exact": report.exact_total,
            "by_role": None if report.by_role is None else dict(report.by_role),
            "by_type": None if report.by_type is None else dict(report.by_type),
            "pending_entries": report.pending,
        },
        "tokenized_texts": report.tokenized,
        "cached_texts": report.cached,
        "cache": _cache_json(cache),
    }


def _cache_json(cache: CountCache | None) -> dict[str, Any]:
    """``tokens.cache``: where exact counts are remembered, and why not when they are not."""
    return {"path": str(cache.path) if cache is not None and cache.path else None,
            "persistent": cache is not None and cache.persistent,
            "note": cache.note if cache is not None else None}


def inspect_summary(t: Transcript, encoding: str = "o200k_base", *, file_tokens: bool = False,
                    cache: CountCache | None = None) -> dict[str, Any]:
    """The ``inspect --json`` object for a loaded transcript (whole-file tokens on request)."""
    by_type = Counter(e.type for e in t.entries)
    by_role = Counter(e.message.role for e in t.entries if e.message is not None)
    report = (count_tokens(t, encoding, cache=cache) if file_tokens
              else count_context_tokens(t, encoding, cache=cache))
    context = context_texts(t)
    return {
        "path": str(t.path),
        "format": t.format,
        "agent": t.gaps.agent or agent_name(t.format),
        "lacks": [{"kind": k, "meaning": gap_text(k)} for k in t.gaps.missing],
        "notes": list(t.gaps.notes),
        "session_id": t.session_id,
        "session_name": t.session_name,
        "entries": {"total": len(t.entries), "by_type": dict(sorted(by_type.items()))},
        "messages": {"total": sum(by_role.values()), "by_role": dict(sorted(by_role.items()))},
        "compactions": by_type.get("compaction", 0),
        "leaf_id": t.leaf_id,
        "active_path_length": len(t.active_path),
        "active_path": list(t.active_path),
        "context_messages": len(context),
        # what the agent's model sees, in order: hold it against a request the agent sent
        "context": context,
        "labels": dict(t.labels),
        "tokens": _tokens(t, report, cache),
        "cost": _cost_json(t),
        "compaction_subagent": _subagent_json(t),
        "file_size": t.file_size,
        # in file order: tree checks (cycles, ...) report after the line-by-line parse
        "diagnostics": [{"line": d.line, "reason": d.reason, "severity": d.severity}
                        for d in sorted(t.diagnostics, key=lambda d: (d.line is not None,
                                                                      d.line or 0))],
    }


def _subagent_json(t: Transcript) -> dict[str, Any] | None:
    """``compaction_subagent``: for Claude Code's ``agent-acompact-*`` files, the session and
    the compaction they belong to."""
    link = compaction_subagent_of(t, load_transcript)
    if link is None:
        return None
    return {"parent_session_id": link.parent_session_id,
            "parent_path": None if link.parent_path is None else str(link.parent_path),
            "compaction_id": link.compaction_id, "compaction_line": link.compaction_line,
            "matched_by": link.matched_by or None}


def _cost_json(t: Transcript) -> dict[str, Any] | None:
    """``cost``: what the agent recorded the session cost (Claude Code's last ``cost-state``)."""
    cost = last_cost(t.entries)
    if cost is None:
        return None
    return {"total_usd": cost.total_usd, "line": cost.line, "source": "cost-state",
            "by_model": {m: dict(u) for m, u in cost.by_model.items()}}


def _subagent_lines(link: dict[str, Any] | None) -> list[str]:
    if link is None:
        return []
    head = (f"  subagent      Claude Code's compaction subagent of session "
            f"{link['parent_session_id']}: ")
    if link["parent_path"] is None:
        return [head + "the session's file is not beside its folder"]
    if link["compaction_id"] is None:
        return [head + f"no compaction of {link['parent_path']} matches its summary"]
    return [head + f"its last message is the summary of compaction {link['compaction_id']} "
            f"(line {link['compaction_line']:,} of {link['parent_path']}, found by "
            f"{link['matched_by']})"]


def _counted(label: str, total: int, parts: dict[str, int], width: int) -> str:
    """``label  total   kind n, kind n`` with the totals right-aligned to ``width``."""
    line = f"  {label:<14}{total:>{width},}"
    if parts:
        line += "   " + ", ".join(f"{k} {v:,}" for k, v in parts.items())
    return line


def _agent_estimate(s: dict[str, Any]) -> str:
    tok = s["tokens"]
    if tok["agent_rule"] is None:
        return f"  agent         {s['agent']}: no token estimate of its own (the exact count " \
               "is the one to use)"
    return f"  agent         {s['agent']}: its own estimate {tok['agent_estimate']:,} " \
           f"({tok['agent_rule']} rule)"


def _outside(tok: dict[str, Any]) -> list[str]:
    """Why exact and reported differ: what the provider counted beyond the file's messages."""
    gap = tok.get("outside_transcript")
    if gap is None:
        return []
    rec = tok.get("recorded_context")
    if rec is not None:
        return [f"  not in file   {gap:,} measured: the recorded request of the reported turn "
                f"counts {rec['exact']:,} ({tok['encoding']}: system prompt {rec['system']:,}, "
                f"tool definitions {rec['tools']:,}, messages {rec['messages']:,}), the "
                "replayed context before that turn the rest"]
    if gap >= 0:
        return [f"  not in file   ~{gap:,} of the reported context: what the agent sends beside "
                "the file's messages (system prompt, tool definitions, injected files) and the "
                "provider's own tokenizer (reported minus the exact count of the context up to "
                "the reported turn)"]
    return [f"  not in file   none: {tok['encoding']} counts the context {-gap:,} higher than "
            "the provider's own tokenizer did"]


def _human(s: dict[str, Any]) -> list[str]:
    tok = s["tokens"]
    width = len(f"{max(s['entries']['total'], s['messages']['total']):,}")
    reported = "n/a" if tok["reported_context"] is None else f"{tok['reported_context']:,}"
    lines = [
        f"{s['path']}",
        f"  format        {s['format']}   session {s['session_id'] or '(no header)'}"
        + (f"   name {json.dumps(s['session_name'], ensure_ascii=False)}"
           if s["session_name"] else ""),
        _counted("entries", s["entries"]["total"], s["entries"]["by_type"], width),
        _counted("messages", s["messages"]["total"], s["messages"]["by_role"], width),
        f"  compactions   {s['compactions']:,}",
        f"  leaf          {s['leaf_id'] or '(none)'}   active path "
        f"{s['active_path_length']:,} entries",
        f"  context       {s['context_messages']:,} messages after replay",
        f"  tokens        reported {reported} | exact {tok['exact']:,} ({tok['encoding']})"
        f" | estimate {tok['estimate']:,} (chars/4)   (context)",
        *_outside(tok),
        *([f"  cost          ${s['cost']['total_usd']:,.4f} as the agent recorded it "
           f"(cost-state, line {s['cost']['line']:,})"] if s.get("cost") else []),
        *_subagent_lines(s.get("compaction_subagent")),
        _agent_estimate(s),
        f"  file tokens   exact {tok['file']['exact']:,}" if tok["file"]["counted"] else
        f"  file tokens   not counted ({tok['file']['pending_entries']:,} entries; "
        "--file-tokens counts them)",
    ]
    if s["lacks"]:
        lines.append("  not recorded  " + "; ".join(g["meaning"] for g in s["lacks"]))
    lines.extend(f"  note          {n}" for n in s["notes"])
    diags = s["diagnostics"]
    if diags:
        lines.append(f"  diagnostics   {len(diags)}")
        for d in diags[:20]:
            where = f"line {d['line']}" if d["line"] is not None else "file"
            lines.append(f"    {d['severity']:7} {where}: {d['reason']}")
        if len(diags) > 20:
            lines.append(f"    ... and {len(diags) - 20} more (use --json for all)")
    else:
        lines.append("  diagnostics   none")
    return lines


def _work_out(args: argparse.Namespace, cache: CountCache) -> tuple[Transcript, dict[str, Any],
                                                                    list[str]]:
    """Load the file and make the answer: (transcript, JSON object, flush report lines)."""
    # A forked child builds the tokenizer on the other core while this process loads a big
    # file, and counts the context's texts the cache lacks (none: it was built for nothing,
    # on a spare core). Where there is no fork, or the file is small, the count builds it.
    worker = CountWorker.for_file(Path(args.file), args.encoding)
    use_count_worker(worker)
    try:
        return _answer(args, cache)
    finally:
        use_count_worker(None, args.encoding)
        worker.close()


def _answer(args: argparse.Namespace, cache: CountCache) -> tuple[Transcript, dict[str, Any],
                                                                  list[str]]:
    from concurrent.futures import ThreadPoolExecutor

    transcript = load_transcript(args.file)
    keep_until_exit(transcript)
    resolved = resolved_settings_for(transcript, args)
    # The context is counted on a thread that mostly waits for the count worker (a pipe read
    # lets go of the GIL) while this one works out the flush report, which needs only pi's
    # estimates, not the exact counts. (A forked child for the report was as quick, but
    # copied ~80 MB of the loaded file's pages as it touched them.)
    with ThreadPoolExecutor(1, thread_name_prefix="sessionlens-count") as pool:
        counting = pool.submit(inspect_summary, transcript, args.encoding,
                               file_tokens=args.file_tokens, cache=cache)
        flush = flush_report(transcript, resolved, args)
        summary = counting.result()
    # the report the summary made (kept per transcript): the whole file's with --file-tokens
    report = count_context_tokens(transcript, args.encoding, cache=cache)
    summary["memory_flush"] = memory_flush_json(flush)
    summary["pruning"] = pruning_json(pruning_delay(
        transcript, resolved.settings, tokens=report, context_window=flush.context_window))
    return transcript, summary, memory_flush_lines(flush)


def _kept_answers(folder: Path, args: argparse.Namespace) -> ReportCache:
    """Where this invocation's answer is kept (see ``report_cache``)."""
    from sessionlens.engine.errors import SessionLensError
    from sessionlens.engine.opened import config_for

    options = {"encoding": args.encoding, "file_tokens": args.file_tokens,
               "store": str(args.store) if args.store else None,
               "context_window": args.context_window}
    try:
        settings_text: str | None = repr(config_for(args.file))
    except (SessionLensError, OSError):
        settings_text = None  # the run itself says what is wrong with them
    return ReportCache(folder, args.file, options, settings_text)


def run(args: argparse.Namespace) -> int:
    folders = user_folders(args.basedir)
    use_tokenizer_folder(folders.cache / "tiktoken")
    cache = use_count_cache(folders.cache)
    kept = _kept_answers(folders.cache, args)
    answer = None if args.fresh else kept.get()
    if answer is not None:
        summary, lines = answer["summary"], answer["flush_lines"]
        tokens = summary["tokens"]
        tokens["cached_texts"] += tokens["tokenized_texts"]  # every text is known now
        tokens["tokenized_texts"] = 0
        tokens["cache"] = _cache_json(cache)  # this run's count cache, as it is now
    else:
        warned = warnings_given()
        transcript, summary, lines = _work_out(args, cache)
        if warnings_given() == warned:
            kept.put(transcript.file_sha256, transcript.file_size, transcript.format,
                     {"summary": summary, "flush_lines": lines})
    summary["report_cache"] = {"hit": kept.hit, "folder": str(kept.folder)}
    if args.json:
        emit_json(summary)
    else:
        emit_lines(_human(summary) + lines)
    return 0
