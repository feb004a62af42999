"""OpenClaw (``openclaw``): its per-agent SQLite store and its cut rule. Its JSONL session
files are pi's v3 format, read by ``agents.pi.parse``."""
