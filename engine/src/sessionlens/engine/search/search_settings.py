"""How the search index chunks text and how hits are ranked: OpenClaw's memory-engine numbers.

The defaults are the ones OpenClaw's memory engine uses (compaction-system.md, last
section): 400-token chunks with 80 tokens of overlap, hybrid ranking 0.7 vector / 0.3 text
with 4x candidate over-fetch, hits under 0.35 dropped, at most 6 returned. Each is a field
so a user (or a test) can change it; the chunking fields are part of the index's identity,
so changing them rebuilds the index instead of mixing two chunkings.
"""

from __future__ import annotations

from dataclasses import dataclass

from sessionlens.engine.errors import ConfigError

__all__ = ["DEFAULT_SEARCH_SETTINGS", "ESTIMATE", "SearchSettings"]

#: ``chunk_encoding`` value that measures chunks with the agents' chars/4 estimate (what
#: OpenClaw itself chunks with) instead of a real tokenizer.
ESTIMATE = "estimate"


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """Chunking and ranking parameters of one search index."""

    chunk_tokens: int = 400
    chunk_overlap: int = 80
    #: tiktoken encoding that measures chunk sizes, or ``ESTIMATE`` for chars/4.
    chunk_encoding: str = ESTIMATE
    vector_weight: float = 0.7
    text_weight: float = 0.3
    #: Each ranking fetches ``candidate_multiplier * max_results`` candidates before merging.
    candidate_multiplier: int = 4
    #: Hybrid hits scoring under this are dropped (text-only hits all contain the query).
    min_score: float = 0.35
    max_results: int = 6
    #: BM25 ranks at most about this many matching chunks per query (the newest ones when
    #: the words are everywhere), which bounds query time on a large index.
    rank_cap: int = 5_000

    def __post_init__(self) -> None:
        if self.chunk_tokens < 16:
            raise ConfigError(f"chunk size must be at least 16 tokens, got {self.chunk_tokens}")
        if not 0 <= self.chunk_overlap < self.chunk_tokens // 2:
            raise ConfigError(f"chunk overlap must be between 0 and half the chunk size, got "
                              f"{self.chunk_overlap}")
        if self.vector_weight < 0 or self.text_weight < 0 or \
                self.vector_weight + self.text_weight <= 0:
            raise ConfigError("ranking weights must be non-negative and not both 0")
        if self.candidate_multiplier < 1 or self.max_results < 1 or self.rank_cap < 1:
            raise ConfigError("candidate multiplier and result count must be at least 1")
        if not 0 <= self.min_score <= 1:
            raise ConfigError(f"minimum score must be in [0, 1], got {self.min_score}")

    @property
    def chunking_key(self) -> str:
        """What an index records about its chunks; a different key means a rebuild."""
        return f"{self.chunk_tokens}/{self.chunk_overlap}/{self.chunk_encoding}"


DEFAULT_SEARCH_SETTINGS = SearchSettings()
