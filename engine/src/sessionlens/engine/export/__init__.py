"""Exports: audited summaries as Markdown, JSON (with its schema) and inert HTML."""
