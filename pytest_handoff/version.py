"""The version of pytest-handoff (read by the build, and by ``handoff-lint --version``)."""

__version__ = "0.1.0"
