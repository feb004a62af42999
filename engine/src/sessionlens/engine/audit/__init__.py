"""Auditing (pure): checks and coverage of a summary, what it dropped, the quality loop, recorded compactions."""
