"""``python -m sessionlens.engine.cli ...``: the headless CLI without the GUI launcher."""

from __future__ import annotations

from sessionlens.engine.cli import run_process

__all__: list[str] = []

if __name__ == "__main__":
    run_process()
