"""Reading handoffs as people do: ``handoff-lint chain``, ``report``, ``show`` and ``schema export``.

Every view checks its chains with the same engine as the linter and asks each chain's profile
to summarise it (``Profile.summarise``); secrets are masked in the view as the engine masks
them in findings. Rich (and matplotlib, for ``report --plot``) are imported only here.
"""

from __future__ import annotations
