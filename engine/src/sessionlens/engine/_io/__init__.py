"""Private file I/O helpers: crash-safe writes and the JSON5 reader for openclaw.json."""
