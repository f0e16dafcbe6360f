"""pytest_handoff.places."""
