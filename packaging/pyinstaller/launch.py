"""Frozen-app entry point: the same main() as the ``sessionlens`` script."""

import sys

from sessionlens.gui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
