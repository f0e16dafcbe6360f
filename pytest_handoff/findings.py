"""Deprecated: findings are values of :mod:`pytest_handoff.model` now (``Finding``, ``Severity``)."""

from __future__ import annotations

import warnings

from pytest_handoff.model import Finding, Severity

warnings.warn(
    "pytest_handoff.findings is deprecated: import Finding and Severity from pytest_handoff.model",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["Finding", "Severity"]
