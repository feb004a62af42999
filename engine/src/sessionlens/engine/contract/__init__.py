"""What summarize and audit share: the summary templates, their limits, identifier classes, the latest ask."""
