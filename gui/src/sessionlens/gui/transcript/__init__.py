"""The open transcript's views: timeline, message view, token chart, diagnostics."""
