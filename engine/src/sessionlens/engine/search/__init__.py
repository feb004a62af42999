"""Search across every session on the machine: index, rank, and what compaction did to a hit."""
