"""Fleet memory health: every session of a machine (or a cluster of them) audited at once.

``listing`` finds the sessions and what identifies their bytes, ``rows`` audits one session
into a small row (the engine's own per-file audit), ``row_cache`` keeps rows of unchanged
files, ``fleet_run`` runs the audits serially or on Dask, ``aggregate`` ranks and groups the
rows, ``report_html`` and ``svg_charts`` draw the report.
"""
