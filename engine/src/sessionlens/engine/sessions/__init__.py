"""Sessions on disk: the agents' folders, what each file in them is, OpenClaw's sessions.json."""
