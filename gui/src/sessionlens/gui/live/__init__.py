"""The Live dock: sessions being written now, their gauges, the next cut, compaction alerts."""
