"""Settings dialog and provider profiles."""
