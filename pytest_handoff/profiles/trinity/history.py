"""Trinity's handoff history in one workspace (TR106): handoffs are accepted in the order sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.profiles.trinity.names import Instant, parse_timestamp
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


def check_history_goes_forward(chain: Group, settings: Settings) -> Iterator[Hit]:
    """No handoff is left ``pending`` behind a later one from the same sender that was ``accepted``.

    **What it does**: within one workspace's `handoff/` folder, takes each sender's handoffs by
    their `timestamp` (as instants) and reports a `pending` handoff older than an `accepted` one
    from the same sender, pointing at the newest such accepted handoff. Handoffs from different
    senders are not compared: an agent may take them up in any order.

    **Why is this bad?** The receiving agent accepts a sender's handoffs as they come, so its
    history only moves forward: an older handoff still pending behind an accepted newer one was
    skipped, and the context it carried (often what the newer one builds on) was never taken up.
    It also happens when a handoff is reset to `pending` by hand, or copied in with an old time.

    **Example**: `tester/handoff/developer-2026-04-02T10:00:00.000Z.json` with `"status": "pending"`
    beside `tester/handoff/developer-2026-04-02T11:00:00.000Z.json` with `"status": "accepted"`.

    **Use instead**: accept (or remove) the older handoff before, or when, accepting the newer one;
    when the older one is superseded, delete it or mark it `accepted` to say it was handled.
    """
    latest_accepted: dict[str, tuple[Instant, Document]] = {}
    pending: list[tuple[str, Instant, Document]] = []
    for document in chain.valid():
        data = document.data
        instant = parse_timestamp(data["timestamp"])
        if instant is None:  # the schema reports it
            continue
        sender = data["from"]
        if data["status"] == "accepted":
            known = latest_accepted.get(sender)
            if known is None or instant > known[0]:
                latest_accepted[sender] = (instant, document)
        elif data["status"] == "pending":
            pending.append((sender, instant, document))
    for sender, instant, document in pending:
        later = latest_accepted.get(sender)
        if later is None or not later[0] > instant:
            continue
        accepted = later[1]
        yield Hit(
            document,
            "/status",
            f"still pending, but a later handoff from {sender!r} "
            f"({accepted.data['timestamp']}, {accepted.name}) was accepted: "
            "a sender's handoffs are accepted in the order they were sent",
            related=((accepted, "/status", "the later handoff, accepted"),),
        )
