"""Planning (pure): thresholds, overflow forensics, cut points per agent rule, chunks, pruning."""
