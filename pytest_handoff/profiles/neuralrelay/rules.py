"""NeuralRelay's contract rules, registered on import: one module per idea.

- :mod:`~pytest_handoff.profiles.neuralrelay.layout`: file names and order (NR1xx)
- :mod:`~pytest_handoff.profiles.neuralrelay.handoff`: one handoff at a time (NR2xx)
- :mod:`~pytest_handoff.profiles.neuralrelay.classification`: property classifications (NR301-NR305),
  on the assignment of :mod:`~pytest_handoff.profiles.neuralrelay.matching`
- :mod:`~pytest_handoff.profiles.neuralrelay.tracing`: acceptance criteria traced (NR306)
- :mod:`~pytest_handoff.profiles.neuralrelay.cycles`: rework cycles, tokens (NR307-NR309)
"""

from __future__ import annotations

from typing import Any

from pytest_handoff.profiles.neuralrelay import (  # noqa: F401 (imported to register their rules)
    classification,
    cycles,
    handoff,
    layout,
    tracing,
)


def __getattr__(name: str) -> Any:
    # Older imports of the string walker (tests); not at import time, which would make a
    # module importing the profile part-way see this one half-initialised.
    if name == "_strings":
        return tracing._strings
    raise AttributeError(name)
