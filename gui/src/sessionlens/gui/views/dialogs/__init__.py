"""Dialogs (settings, errors)."""
