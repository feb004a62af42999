"""Exact-token counting throughput: ``count_tokens`` against raw tiktoken on the same texts.

Generates a synthetic transcript in memory (English prose, Python source, JSON tool output,
tool calls with arguments, some CJK), then times:
  raw      -- ``len(enc.encode_ordinary(t))`` for each entry's count text, one thread
  raw-batch-- ``enc.encode_ordinary_batch(texts)`` (tiktoken's own thread pool)
  ours     -- ``count_tokens(transcript, encoding)`` cold (text building, both estimates,
              exact counts, totals), then warm (cached).
Usage: python benchmarks/tokens.py [MEGABYTES] [ENCODING]
"""

from __future__ import annotations

import inspect
import json
import random
import sys
import time
from pathlib import Path

from sessionlens.engine.model import (
    ContextItem,
    Entry,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
    Usage,
)
from sessionlens.engine.tokens.counts import count_tokens, entry_count_text, get_encoding


def _corpus() -> tuple[str, str]:
    prose = "\n".join(filter(None, (inspect.getdoc(m) for m in
                                    (json, random, inspect, Path, time, sys))))
    code = "".join(Path(m.__file__).read_text() for m in (json.decoder, random, inspect)
                   if m.__file__)
    return prose * 3, code


def make_transcript(megabytes: float, seed: int = 7) -> Transcript:
    rng = random.Random(seed)
    prose, code = _corpus()
    target = int(megabytes * 1_000_000)

    def cut(src: str, n: int) -> str:
        i = rng.randrange(0, max(1, len(src) - n))
        return src[i:i + n]

    entries: list[Entry] = []
    size, parent = 0, None
    while size < target:
        kind = rng.random()
        eid = f"{len(entries):08x}"
        if kind < 0.2:
            msg = Message(role="user", content=(TextBlock(cut(prose, rng.randint(50, 2000))),))
        elif kind < 0.55:
            args = {"path": f"/src/{eid}.py", "content": cut(code, rng.randint(100, 4000))}
            msg = Message(role="assistant", content=(
                ThinkingBlock(cut(prose, rng.randint(100, 1500))),
                TextBlock(cut(prose, rng.randint(20, 800)) + " 日本語のテキスト"),
                ToolCallBlock(f"call_{eid}", "write", args)),
                usage=Usage(input=size // 4, output=100), stop_reason="toolUse")
        else:
            body = (cut(code, rng.randint(200, 12000)) if rng.random() < 0.6 else
                    json.dumps([{"id": i, "name": cut(prose, 30)} for i in range(rng.randint(5, 200))]))
            msg = Message(role="toolResult", content=(TextBlock(body),), tool_call_id=f"c{eid}",
                          tool_name="read")
        entries.append(Entry(type="message", id=eid, parent_id=parent, timestamp=None,
                             line=len(entries) + 2, message=msg))
        size += sum(len(getattr(b, "text", "") or getattr(b, "thinking", "")) for b in msg.content)
        parent = eid
    ids = tuple(e.id for e in entries)
    return Transcript(
        path=Path("/synthetic.jsonl"), format="openclaw-v3", header=None, entries=tuple(entries),
        index={e.id: i for i, e in enumerate(entries)}, leaf_id=ids[-1], active_path=ids,
        context=tuple(ContextItem("message", e.id, e.role or "") for e in entries),
        labels={}, session_name=None, diagnostics=())


def main() -> None:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    encoding = sys.argv[2] if len(sys.argv) > 2 else "o200k_base"
    t = make_transcript(megabytes)
    enc = get_encoding(encoding)
    texts = [entry_count_text(e) for e in t.entries]
    chars = sum(map(len, texts))
    print(f"{len(t.entries)} entries, {chars / 1e6:.1f} M chars of count text, {encoding}")

    t0 = time.perf_counter()
    raw = sum(len(enc.encode_ordinary(x)) for x in texts)
    t_raw = time.perf_counter() - t0
    t0 = time.perf_counter()
    raw_batch = sum(map(len, enc.encode_ordinary_batch(texts)))
    t_batch = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = count_tokens(t, encoding)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    count_tokens(t, encoding)
    t_warm = time.perf_counter() - t0
    assert report.exact_total == raw == raw_batch, (report.exact_total, raw, raw_batch)
    print(f"raw tiktoken, 1 thread : {t_raw:6.2f} s  {raw / t_raw / 1e6:5.2f} M tok/s")
    print(f"raw encode_ordinary_batch: {t_batch:6.2f} s  {raw / t_batch / 1e6:5.2f} M tok/s")
    print(f"count_tokens (cold)     : {t_ours:6.2f} s  {raw / t_ours / 1e6:5.2f} M tok/s  "
          f"= {t_raw / t_ours:.2f}x raw, {t_batch / t_ours:.2f}x raw batch")
    print(f"count_tokens (cached)   : {t_warm * 1e3:6.2f} ms")


if __name__ == "__main__":
    main()
