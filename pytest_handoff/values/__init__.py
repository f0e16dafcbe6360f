"""pytest_handoff.values."""
