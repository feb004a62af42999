"""Tokens: reported usage, exact tiktoken counts and the agents' own chars/4 estimates."""
