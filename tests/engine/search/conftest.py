"""The search tests' machine of sessions (built in ``fixtures.search_sessions``)."""

from fixtures.search_sessions import machine

__all__ = ["machine"]
