"""Trinity's file names, ``{from}-{ISO 8601 timestamp}.json``, and timestamps as instants.

Trinity names a handoff after its sender and ``new Date().toISOString()``
(``developer-2026-04-02T10:00:00.000Z.json``). The sender's name may hold hyphens, so a name is
split where the timestamp starts, found from the end. Windows cannot hold ``:`` in a file name,
so ``_`` or ``-`` in place of every colon of the timestamp is read the same way.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import NamedTuple

# One separator for all the colons of a stamp (backreference): ``10:00:00``, ``10_00_00``, ``10-00-00``.
# One pattern serves names and fields (a compiled pattern costs start-up time): anchored at the end,
# ``search`` finds where a name's timestamp starts, however many hyphens the agent holds.
STAMP = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[Tt](?P<hour>\d{2})(?P<sep>[:_-])(?P<minute>\d{2})(?P=sep)(?P<second>\d{2})"
    r"(?:\.(?P<fraction>\d+))?(?P<zone>[Zz]|[+-]\d{2}(?P=sep)\d{2})\Z"
)
#: Digits of a second's fraction kept when comparing (picoseconds: far below any clock's).
_FRACTION_DIGITS = 12
_PICOS_PER_SECOND: int = 10**_FRACTION_DIGITS
_PICOS_PER_MILLI: int = 10**9
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class Instant(NamedTuple):
    """A moment: whole seconds since 1970 (UTC) and the fraction of a second in picoseconds.

    Comparable whatever the stamp's offset or precision: ``...10:00:00.000Z`` and
    ``...12:00:00+02:00`` are the same instant.
    """

    seconds: int
    picoseconds: int

    def minus(self, other: Instant) -> int:
        """How much later this instant is than ``other``, in milliseconds (rounded toward zero)."""
        picos = (self.seconds - other.seconds) * _PICOS_PER_SECOND + self.picoseconds - other.picoseconds
        millis = abs(picos) // _PICOS_PER_MILLI
        return millis if picos >= 0 else -millis


class FileName(NamedTuple):
    """A handoff file name, read: the sender and the timestamp as written (colons or not)."""

    agent: str
    stamp: str
    instant: Instant
    #: True when the stamp stands ``_`` or ``-`` in place of its colons (a Windows-safe name).
    substituted: bool


def _instant(match: re.Match[str]) -> Instant | None:
    """The instant a stamp matched by :data:`STAMP` names (None: no such date)."""
    year, month, day = (int(part) for part in match.group("date").split("-"))
    hour, minute, second = (int(match.group(key)) for key in ("hour", "minute", "second"))
    zone = match.group("zone")
    try:
        offset = timezone.utc
        if zone not in ("Z", "z"):
            hours, minutes = int(zone[1:3]), int(zone[4:6])
            if minutes > 59:
                return None
            sign = -1 if zone[0] == "-" else 1
            offset = timezone(sign * timedelta(hours=hours, minutes=minutes))
        # A leap second (60) is valid ISO 8601 and RFC 3339 but not a valid datetime.
        moment = datetime(year, month, day, hour, minute, min(second, 59), tzinfo=offset)
    except ValueError:
        return None
    if second > 60:
        return None
    elapsed = moment - _EPOCH
    seconds = elapsed.days * 86400 + elapsed.seconds + (second == 60)
    fraction = (match.group("fraction") or "")[:_FRACTION_DIGITS]
    return Instant(seconds, int(fraction.ljust(_FRACTION_DIGITS, "0")))


@lru_cache(maxsize=16384)  # rules and grouping ask for every file's name several times
def parse_file_name(name: str) -> FileName | str:
    """``name`` read as ``{agent}-{timestamp}.json``, or why it cannot be (a sentence for a finding)."""
    if not name.endswith(".json"):
        return "a handoff file name ends in .json"
    stem = name[:-5]
    match = STAMP.search(stem)
    start = match.start() if match is not None else 0
    if match is None or start < 2 or stem[start - 1] != "-":
        return (
            "file name should be {agent}-{ISO 8601 timestamp}.json, "
            "e.g. developer-2026-04-02T10:00:00.000Z.json"
        )
    instant = _instant(match)
    if instant is None:
        return f"the timestamp in the file name, {match.group()!r}, is no real date and time"
    return FileName(stem[: start - 1], match.group(), instant, match.group("sep") != ":")


def looks_like_handoff(name: str) -> bool:
    """True when ``name`` is ``{agent}-{timestamp}.json`` as far as its shape goes (the date may be wrong)."""
    if not name.endswith(".json"):
        return False
    match = STAMP.search(name, 0, len(name) - 5)
    return match is not None and match.start() >= 2 and name[match.start() - 1] == "-"


def parse_timestamp(value: str) -> Instant | None:
    """The instant of an RFC 3339 timestamp (``2026-04-02T10:00:00.000Z``), None when it is not one."""
    match = STAMP.match(value)
    return None if match is None or match.group("sep") != ":" else _instant(match)
