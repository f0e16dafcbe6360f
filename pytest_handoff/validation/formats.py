"""String formats our schemas use, checked without jsonschema: RFC 3339 date-times."""

from __future__ import annotations

import re
from datetime import datetime

# RFC 3339 section 5.6 (what JSON Schema's "date-time" means), checked without extra packages.
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def is_rfc3339_date_time(value: object) -> bool:
    """True for an RFC 3339 date-time such as ``2026-03-22T14:30:52Z``; non-strings pass (as in JSON Schema)."""
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    try:
        # Leap seconds (60) are valid RFC 3339 but not valid datetimes.
        datetime(year, month, day, hour, minute, min(second, 59))
    except ValueError:
        return False
    offset = match.group(8)
    if offset not in ("Z", "z") and (int(offset[1:3]) > 23 or int(offset[4:6]) > 59):
        return False
    return second <= 60
