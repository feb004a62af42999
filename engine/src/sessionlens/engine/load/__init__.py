"""Loading: format detection, the per-format parsers, the entry tree and the replayed context."""
