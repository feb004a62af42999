"""OpenCode (``opencode-ai``): its SQLite session reader (read only)."""
