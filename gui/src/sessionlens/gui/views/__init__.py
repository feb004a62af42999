"""Widgets. Each gets the SessionController (or narrower callables) injected."""
