"""Helpers shared by the provider and summarize tests: no-wait retries, requests, plans."""

from __future__ import annotations

from factories import TranscriptBuilder

from sessionlens.engine.model import FileOps, Transcript
from sessionlens.engine.plan import CompactionPlan
from sessionlens.engine.providers import ChatMessage, CompletionRequest, RetryPolicy


class FakeSleep:
    """Records the waits the retry policy asks for, without waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def policy(sleep: FakeSleep, attempts: int = 3) -> RetryPolicy:
    """No jitter (random() = 0.5 gives a factor of exactly 1) and no real waiting."""
    return RetryPolicy(attempts=attempts, sleep=sleep, random=lambda: 0.5)


def request(text: str = "summarize this", max_tokens: int = 200) -> CompletionRequest:
    return CompletionRequest("system words", (ChatMessage("user", text),), max_tokens, 0.0)


def small_transcript() -> Transcript:
    b = TranscriptBuilder()
    b.user("Fix the flaky upload test in services/upload/handler.py; never touch the CI config.")
    call = b.call("bash", command="pytest tests/test_upload.py -k flaky")
    b.assistant("Running the upload tests. We'll use tmp_path instead of /tmp/uploads.", call)
    b.result(call, "1 failed: ConnectionResetError: [Errno 104] Connection reset by peer",
             is_error=True)
    b.user("Also check port 9091 on staging.example.com:9091 please.")
    b.assistant("Checked; the port answers.")
    b.user("Thanks, keep going.")
    return b.build()


def plan_for(t: Transcript, *, keep: int = 1, chunks: tuple[tuple[str, ...], ...] | None = None,
             previous: str | None = None, split_prefix: tuple[str, ...] = (),
             oversized: tuple[str, ...] = (), file_ops: FileOps | None = None,
             budget: int = 2000) -> CompactionPlan:
    """A plan that summarizes everything but the last ``keep`` entries (planner-independent)."""
    ids = tuple(e.id for e in t.entries)
    summarize = ids[: len(ids) - keep - len(split_prefix)] if split_prefix else ids[:-keep]
    return CompactionPlan(
        should_compact=True, context_tokens=5000, context_window=128_000, threshold=100,
        first_kept_entry_id=ids[-keep], is_split_turn=bool(split_prefix),
        turn_start_entry_id=split_prefix[0] if split_prefix else None,
        summarize_entry_ids=summarize, turn_prefix_entry_ids=split_prefix,
        kept_entry_ids=ids[-keep:], previous_summary=previous, previous_compaction_id=None,
        file_ops=file_ops or FileOps(), tokens_before=5000, summary_budget_tokens=budget,
        predicted_tokens_after=800, chunks=chunks if chunks is not None else (summarize,),
        oversized_entry_ids=oversized, valid_cut_entry_ids=ids, cut_reason="test",
        settings=None)
