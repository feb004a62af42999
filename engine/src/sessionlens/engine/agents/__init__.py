"""One home per agent: what SessionLens knows of each agent it plans, writes or hooks into.

``agents/<agent>/`` holds that agent's readers, its cut rule per release range, its writer
and its integration pieces, and ``release.py``: the releases it covers and the version it
is tested against. The generic layers (load, plan, persist, integrate) never import an
agent's modules themselves: they ask ``catalog``, which names them, and import on use.
"""
