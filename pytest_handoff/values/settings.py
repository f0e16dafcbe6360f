"""The settings of a run: one immutable value every entry point builds once and hands down.

A value only: reading ``[tool.handoff]``, merging ini options and flags into it and refusing an
unknown rule code is :mod:`pytest_handoff.pipeline.config`'s work.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from pytest_handoff.values.findings import Severity

#: Files larger than this are reported instead of parsed (bytes).
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024

#: The default of mapping fields: shared, and read-only through its ``Mapping`` type.
_EMPTY: Mapping[str, Any] = {}
_NO_BASELINE: Mapping[tuple[str, str, str, str], int] = {}


class Settings(NamedTuple):
    """Everything a check run can be told; immutable so runs can share it."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severities: Mapping[str, Severity] = _EMPTY
    threshold: Severity = Severity.INFO
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # Each profile's own table (``[tool.handoff.<profile>]``), parsed: profile name -> key -> value.
    options: Mapping[str, Mapping[str, Any]] = _EMPTY
    # A profile forced on named files (``--profile``); empty: each file's own.
    profile: str = ""
    # Check handoffs' claims against the repository (EV rules). On by default in a git repository
    # (``build_settings`` decides); ``evidence = false``, ``--no-evidence`` turn it off. None: not
    # decided (a Settings made by hand: off).
    evidence: bool | None = None
    # Why evidence is off though nobody turned it off ("not a git repository"); empty otherwise.
    evidence_off: str = ""
    # Keep the handoffs' test claims for the pytest session to reconcile (set by the plugin only).
    evidence_session: bool = False
    # A JUnit XML report the handoffs' test claims are reconciled with (implies ``evidence``).
    evidence_junit: str = ""
    # Codes (or prefixes) left out for files a glob matches (``per-file-ignores``, as ruff spells it).
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The baseline file and its entries (see :mod:`pytest_handoff.pipeline.baseline`): findings
    # it knows are left out of what is reported. Applied to results, so not in the fingerprint.
    baseline_file: str = ""
    # This run's shard (K, N) of the groups (``--shard K/N``); None: every group. Not in the
    # fingerprint: it chooses groups, never a group's result.
    shard: tuple[int, int] | None = None
    baseline: Mapping[tuple[str, str, str, str], int] = _NO_BASELINE

    def options_of(self, profile: str) -> Mapping[str, Any]:
        """The options of ``profile`` (``[tool.handoff.<profile>]``; empty when not configured)."""
        return self.options.get(profile, _EMPTY)

    def fingerprint(self) -> str:
        """Everything in the settings that can change a result, as stable text (for the cache)."""
        return repr(
            (self.select, self.ignore, sorted(self.severities.items()), self.threshold,
             self.max_file_size, _stable(self.options), self.profile, self.evidence, self.evidence_junit,
             self.per_file_ignores)
        )  # fmt: skip


def _stable(value: Any) -> Any:
    """``value`` with every mapping as sorted pairs: the same options give the same text."""
    if isinstance(value, Mapping):
        return sorted((str(key), _stable(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [_stable(item) for item in value]
    return value


#: Settings with nothing configured (the default of profile methods asked without settings).
NO_SETTINGS = Settings()
