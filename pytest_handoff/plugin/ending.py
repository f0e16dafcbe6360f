"""A session of handoff items only: what it collected is kept out of later garbage collections.

pytest collects garbage at the end of a session (to report what tests left unraisable), and
Python again as the process exits; each walks every object the process holds. After a session
of 10,000 handoff files, whose items and results stay until the end, those walks were a third
of a second in each xdist worker (which the controller waits for) and as long at the end of a
serial run. When a session collected handoff items and nothing else, no code of the project's
runs after collection: its garbage is collected once then, and what is left is frozen
(:func:`gc.freeze`), so the later collections walk only what the items make.

A session run inside another one (pytester's in-process runs) unfreezes at its end, and a
session after a frozen one unfreezes at its start: a process that goes on is as it was.
"""

from __future__ import annotations

import gc

_depth = 0  # sessions configured and not yet unconfigured, nested ones included
_frozen = False  # whether the objects frozen now were frozen here


def session_started() -> None:
    """At a session's start: thaw what a session before it froze."""
    global _depth
    _thaw()
    _depth += 1


def collected(handoff_items_only: bool) -> None:
    """At collection's end: freeze what the session holds when it runs handoff items only
    (and nothing froze the process before: a host's own freeze is left as is)."""
    global _frozen
    if handoff_items_only and gc.get_freeze_count() == 0:
        gc.collect()  # collected now, its garbage cannot be frozen with it
        gc.freeze()
        _frozen = True


def session_ended() -> None:
    """At a session's end: a nested session thaws what it froze; the outermost keeps it frozen
    to the process's end."""
    global _depth
    _depth = max(0, _depth - 1)
    if _depth:
        _thaw()


def _thaw() -> None:
    global _frozen
    if _frozen:
        gc.unfreeze()
        _frozen = False
