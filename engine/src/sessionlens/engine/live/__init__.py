"""Following sessions while their agents write them: appended lines, the gauge, events."""
