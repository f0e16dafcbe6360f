"""``python -m pytest_handoff.cli``: the same as ``handoff-lint``."""

from pytest_handoff.cli import run

if __name__ == "__main__":
    run()
