"""Claude Code (``@anthropic-ai/claude-code``): its reader and request records, its cut
rule, its successor writer and its PreCompact/PostCompact hooks."""
