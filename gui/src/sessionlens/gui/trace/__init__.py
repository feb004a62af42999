"""The fact-trace view: which compaction made the agent forget a given fact."""
