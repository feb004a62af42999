"""Qt item models: thin adapters over engine objects, plus the rows they show.

Row building and filtering are plain functions (``timeline_rows``) so they run on the task
pool for 100,000-entry files; the Qt models only swap prepared tuples in and format them.
"""
