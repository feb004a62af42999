"""Summarizing (I/O): prompts, serialization, staging and fallback, and the model providers."""
