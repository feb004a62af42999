"""Codex CLI (``@openai/codex``): its rollout reader, its cut rule, its successor rollout and
its notify hook."""
