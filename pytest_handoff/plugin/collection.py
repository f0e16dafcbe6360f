"""Where each discovered group is collected in pytest's tree: values the items are made from.

Apart from the stash keys (``base.py``, loaded at every pytest start): these are loaded only with
``--handoffs``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pytest_handoff.values.groups import GroupRef


class Placed(NamedTuple):
    """A group to report as one item: the whole group (``focus`` None) or one named file of it."""

    ref: GroupRef
    focus: Path | None
    #: False when a path of the group could not be shown as it is (a line break, a secret in a
    #: name): the item then hangs from the root folder, named only by masked, inert text.
    plain: bool = True


class Collection(NamedTuple):
    """Where each discovered group is collected in pytest's tree."""

    #: Groups collected by the collector of their folder (a NeuralRelay chain, a Craik folder).
    by_folder: dict[Path, list[Placed]]
    #: Groups collected through one of their files (a file on its own, a Ralph session).
    by_file: dict[Path, list[Placed]]
    #: Folders to walk into although pytest would not (``.neuralrelay``, ``build``): they hold groups.
    walk_into: frozenset[Path]
