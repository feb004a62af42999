"""``python -m sessionlens.engine.cli ...``: the headless CLI without the GUI launcher."""

from __future__ import annotations

import sys

from sessionlens.engine.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(main())
