"""Trinity's rule table (TR): where a handoff sits, what its name says, and its history.

- :mod:`~pytest_handoff.profiles.trinity.placement`: the file name, sender, timestamp, workspace
  and recipient (TR101-TR105)
- :mod:`~pytest_handoff.profiles.trinity.history`: the order handoffs are accepted in (TR106)

Whether a handoff is a JSON object with ``from``, ``to``, ``timestamp``, ``context`` and a
``status`` of ``pending`` or ``accepted`` is the schema's (``schemas/trinity/handoff.schema.json``,
reported as HS001).
"""

from __future__ import annotations

from pytest_handoff.profiles.trinity.format import HANDOFF_TYPE, NAME
from pytest_handoff.profiles.trinity.history import check_history_goes_forward
from pytest_handoff.profiles.trinity.placement import (
    check_file_name,
    check_not_to_oneself,
    check_sender_in_name,
    check_timestamp_in_name,
    check_workspace_is_recipients,
)
from pytest_handoff.rules.rows import listed
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

_TYPES = (HANDOFF_TYPE,)

RULES: tuple[Rule, ...] = (
    listed("TR101", "file-name", check_file_name, scope="chain", profile=NAME),
    listed("TR102", "sender-in-name", check_sender_in_name, profile=NAME, handoff_types=_TYPES),
    listed("TR103", "timestamp-in-name", check_timestamp_in_name, profile=NAME, handoff_types=_TYPES),
    listed("TR104", "recipient-workspace", check_workspace_is_recipients, profile=NAME, handoff_types=_TYPES),
    listed("TR105", "handoff-to-self", check_not_to_oneself, profile=NAME, handoff_types=_TYPES),
    listed(
        "TR106",
        "history-order",
        check_history_goes_forward,
        scope="chain",
        profile=NAME,
        severity=Severity.WARNING,
        modes=("FM-2.5",),
    ),
)
