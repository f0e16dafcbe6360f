"""Times as handoffs write them (RFC 3339 / ISO 8601), read as aware datetimes."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


def parse_timestamp(value: Any) -> datetime | None:
    """An RFC 3339 / ISO 8601 date or date-time as an aware datetime (naive ones taken as UTC)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text.replace(" ", "T", 1) if len(text) > 10 else text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
