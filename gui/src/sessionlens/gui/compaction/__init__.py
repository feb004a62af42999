"""The compaction workflow: options, preview, run, compare, audit, accept and undo."""
