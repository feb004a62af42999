"""The lineage views: chain graph, branches, drift, compare points, restore."""
