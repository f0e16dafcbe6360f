"""Contract tests for the JSON handoffs AI agents write for each other."""

__version__ = "0.1.0"
