"""Persisting (I/O): the compaction entry, successor or append, checkpoints, the store, locks and change guards."""
