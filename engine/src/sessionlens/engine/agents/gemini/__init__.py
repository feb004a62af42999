"""Gemini CLI (``@google/gemini-cli``): its JSONL and JSON session readers (read only)."""
