"""pi (``@earendil-works/pi-coding-agent``, before 0.74 ``@mariozechner/pi-coding-agent``):
its v1/v2/v3 JSONL reader, its cut rule per release range, its ``settings.json``."""
