"""``python -m pytest_handoff``: the same as ``handoff-lint``."""

import sys

from pytest_handoff.cli import main

if __name__ == "__main__":
    sys.exit(main())
