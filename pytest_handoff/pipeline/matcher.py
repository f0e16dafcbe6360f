"""Which profile's globs a relative path matches, decided without importing any built-in profile."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pytest_handoff.read.globs import glob_regex, owner

if TYPE_CHECKING:
    from pytest_handoff.pipeline.registry import Registry
    from pytest_handoff.values.settings import Settings


class Matcher:
    """Which profile's globs a relative path matches (the first profile in order wins)."""

    def __init__(self, settings: Settings, registry: Registry, *, plugins: bool) -> None:
        only = settings.profile
        names = registry.names() if plugins else registry.builtin_names()
        owners = [owner(name, registry.globs(name, settings)) for name in names]
        self.owners = tuple(o for o in owners if o.globs and (not only or o.name == only))
        # Each owner's globs compiled on its first file: a file of the first profile never
        # compiles the others'.
        self._patterns: dict[str, tuple[re.Pattern[str], ...]] = {}
        endings = [o.endings for o in self.owners]
        self.endings: tuple[str, ...] | None = (
            None if None in endings else tuple({e for group in endings if group for e in group})
        )

    def may_match(self, name: str) -> bool:
        """A cheap first test on a file name alone."""
        return self.endings is None or name.endswith(self.endings)

    def first_owner(self, relative_posix: str) -> str | None:
        """The name of the first profile (built-in ones in their order, then plugins) whose globs
        match; built-in formats come before user contracts, so a contract never takes their files."""
        name = relative_posix.rsplit("/", 1)[-1]
        for candidate in self.owners:
            if candidate.endings is not None and not name.endswith(candidate.endings):
                continue
            patterns = self._patterns.get(candidate.name)
            if patterns is None:
                patterns = self._patterns[candidate.name] = tuple(glob_regex(g) for g in candidate.globs)
            if any(pattern.fullmatch(relative_posix) for pattern in patterns):
                return candidate.name
        return None
