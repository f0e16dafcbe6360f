"""A session of handoff items only: what it collected is kept out of later garbage collections.

pytest collects garbage at the end of a session (to report what tests left unraisable), and
Python again as the process exits; each walks every object the process holds. After a session
of 10,000 handoff files, whose items and results stay until the end, those walks were a third
of a second in each xdist worker (which the controller waits for) and as long at the end of a
serial run. When a session collected handoff items and nothing else, no code of the project's
runs after collection: its garbage is collected once then, and what is left is frozen
(:func:`gc.freeze`), so the later collections walk only what the items make.

The freeze lasts only where the process ends with the session: an xdist worker, or a run of
the ``pytest`` command. A program that calls ``pytest.main()`` and goes on, a session run inside
another one (pytester's in-process runs) and a session after a frozen one thaw: a process that
goes on is as it was.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest

_depth = 0  # sessions configured and not yet unconfigured, nested ones included
_frozen = False  # whether the objects frozen now were frozen here
_COUNTED = pytest.StashKey[bool]()  # a session counted in _depth (its configure reached us)


def session_started(config: pytest.Config) -> None:
    """At a session's start: thaw what a session before it froze, and count it."""
    global _depth
    _thaw()
    config.stash[_COUNTED] = True
    _depth += 1


def collected(handoff_items_only: bool) -> None:
    """At collection's end: freeze what the session holds when it runs handoff items only
    (and nothing froze the process before: a host's own freeze is left as is)."""
    global _frozen
    if handoff_items_only and gc.get_freeze_count() == 0:
        gc.collect()  # collected now, its garbage cannot be frozen with it
        gc.freeze()
        _frozen = True


def session_ended(config: pytest.Config) -> None:
    """At a session's end: thaw, unless it is the outermost and the process ends with it."""
    global _depth
    if not config.stash.get(_COUNTED, False):
        return  # another plugin's configure failed before ours: this session was never counted
    del config.stash[_COUNTED]
    _depth -= 1
    if _depth or not _process_ends_with(config):
        _thaw()


def _process_ends_with(config: pytest.Config) -> bool:
    """An xdist worker, or a run of the ``pytest`` command (its ``console_main`` exits next)."""
    if hasattr(config, "workerinput"):
        return True
    import _pytest.config

    # The command's entry point (``_console_main`` since pytest 9.1, ``console_main`` before);
    # should neither be found, the session thaws, which is always safe.
    entries = [getattr(_pytest.config, name, None) for name in ("_console_main", "console_main")]
    codes = {entry.__code__ for entry in entries if entry is not None}
    frame: Any = sys._getframe(1)
    while frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def _thaw() -> None:
    global _frozen
    if _frozen:
        gc.unfreeze()
        _frozen = False
