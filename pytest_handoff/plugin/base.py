"""What pytest loads of the plugin at every start, ``--handoffs`` or not: the keys the plugin keeps
on pytest's config, and the warning category of its items (named in ``-W`` options and
``filterwarnings``). Nothing of the engine: a test run without ``--handoffs`` does not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.plugin.collection import Collection
    from pytest_handoff.values.groups import GroupResult
    from pytest_handoff.values.settings import Settings

#: Modification time and size of each file of a group (None: it cannot be read).
Stamps = tuple[tuple[int, int] | None, ...]
#: Group results checked at collection end, with the files' stamps when they were read.
Prefetched = dict[tuple[Path, ...], tuple[Stamps, "GroupResult"]]


#: The run's settings: set when ``--handoffs`` is given, and only then.
SETTINGS_KEY: pytest.StashKey[Settings] = pytest.StashKey()
#: The run itself (its settings, registry and project), set with the settings.
RUN_KEY: pytest.StashKey[Run] = pytest.StashKey()
#: The groups of the run and where they are collected (one discovery, on first need).
COLLECTION_KEY: pytest.StashKey[Collection] = pytest.StashKey()
#: The result cache under ``.pytest_cache/d/handoff`` (None without the cache provider).
CACHE_KEY = pytest.StashKey[Any]()
PREFETCHED_KEY = pytest.StashKey[Prefetched]()
#: On an xdist worker: reads the results the other workers checked (see plugin.xdist), once.
OTHER_SHARES_KEY = pytest.StashKey[Callable[[], Prefetched]]()


class HandoffContractWarning(UserWarning):
    """A handoff finding of severity warning."""
