"""The session browser: every transcript found on this machine."""
