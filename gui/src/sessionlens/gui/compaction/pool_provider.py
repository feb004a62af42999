"""Runs a CPU-bound provider (the offline summarizer) on the task pool.

The run itself stays an asyncio task on the Qt loop (DESIGN.md), but the offline provider
does all its work inside ``complete()``: on a transcript of a few MB that is hundreds of
milliseconds of the UI thread. This wrapper hands each call to ``TaskRunner`` (which owns
the threads) and awaits the result, so the loop, and the UI, keep running. A cancelled run
drops the job's result; the job itself cannot be interrupted, only ignored.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sessionlens.engine import (
        Completion,
        CompletionRequest,
        DeltaCallback,
        Provider,
        ProviderProfile,
    )
    from sessionlens.gui.tasks import TaskRunner


class PoolProvider:
    """A ``Provider`` whose calls run on the task pool, each in a private event loop."""

    def __init__(self, inner: Provider, tasks: TaskRunner) -> None:
        self._inner, self._tasks = inner, tasks

    @property
    def profile(self) -> ProviderProfile:
        return self._inner.profile

    async def complete(self, request: CompletionRequest, *,
                       on_delta: DeltaCallback | None = None) -> Completion:
        completion = await self._tasks.offload(lambda: asyncio.run(self._inner.complete(request)))
        if on_delta is not None:
            on_delta(completion.text)
        return completion
