"""The memory-health view: every compaction of the session, worst first."""
