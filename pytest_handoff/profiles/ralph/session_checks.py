"""Rules across a session: the PRD against the logs and the session files."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_handoff.profiles.ralph.logs import Promise
from pytest_handoff.profiles.ralph.protocol import AGENTS, ALLOWED_PAIRS, PHRASE_TYPE, PRD_TYPE, PROMISE
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: Ids named in a message before it says "and N more".
_NAMED = 5


def _items(prd: Document) -> list[Any]:
    items: list[Any] = prd.data["items"]
    return items


def complete_with_open_items(chain: Group, settings: Settings) -> Iterator[Hit]:
    """The session is declared complete while items of prd.json do not pass.

    **What it does**: reports a `<promise>RALPH_COMPLETE</promise>` in a log, and a
    handoff-signal.json of `{"type": "complete"}`, when an item of prd.json has `passes` other
    than `true` (it names the items; nothing is reported without a valid prd.json).

    **Why is this bad?** Completion ends the session: the work left open is never done, and
    the PRD says otherwise than the agents did.

    **Example**: the PM prints the promise while `feat-003` still has `"passes": false`.

    **Use instead**: hand `feat-003` to the developer (`task_assignment`); print the promise only
    once every item passes.
    """
    prd = chain.first(PRD_TYPE)
    if prd is None:
        return
    open_items = [(index, item) for index, item in enumerate(_items(prd)) if item.get("passes") is not True]
    if not open_items:
        return
    ids = [str(item["id"]) for _, item in open_items]
    named = ", ".join(ids[:_NAMED]) + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")
    first = open_items[0][0]
    related = ((prd, f"/items/{first}/passes", "first item that does not pass"),)
    total = len(_items(prd))
    verb = "does" if len(ids) == 1 else "do"
    why = f"{len(ids)} of {total} items of {prd.display_path} {verb} not pass: {named}"
    for document in chain.documents:
        if isinstance(document, Promise):
            yield Hit(document, "", f"{PROMISE} while {why}", related=related)
    for signal in chain.valid("handoff_signal"):
        if signal.data.get("type") == "complete":
            yield Hit(signal, "/type", f"session completed while {why}", related=related)


def task_in_prd(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A handoff's task is not an item of prd.json.

    **What it does**: reports a context whose `task.id` is no item's `id` in prd.json (nothing
    is reported without a valid prd.json).

    **Why is this bad?** The next agent looks the task up in prd.json to read its criteria and
    to mark it done; an id it cannot find leaves the work unrecorded.

    **Example**: `"task": {"id": "feat-01"}` when the PRD has `feat-001`.

    **Use instead**: the item's id exactly as prd.json spells it.
    """
    prd = chain.first(PRD_TYPE)
    if prd is None:
        return
    items = _items(prd)
    ids = {item["id"] for item in items}  # a set: two items may share an id (RL204's finding)
    for document in chain.valid(PHRASE_TYPE):
        task_id = document.data["task"]["id"]
        if task_id not in ids:
            yield Hit(
                document,
                "/task/id",
                f"task {task_id!r} is no item of {prd.display_path} ({counted(len(items), 'item')})",
                related=((prd, "/items", "the PRD's items"),),
            )


def logged_routes(document: Document, settings: Settings) -> Iterator[Hit]:
    """handoff-log.json records a handoff between agents no reason of the protocol connects.

    **What it does**: reports an entry of `handoffs` whose `from` and `to` (both among pm,
    developer, qa) are no route of the protocol's table: pm -> qa, developer -> developer,
    qa -> qa. Entries with another `from` (null before the first agent) are not checked. The
    entries are not matched against the phrases of the logs: a handoff may come from
    handoff-signal.json, and the runner leaves the logs empty, so a missing phrase proves nothing.

    **Why is this bad?** A handoff outside the table skipped a step of the loop (pm straight to
    QA: nothing was implemented), or restarted an agent on its own work.

    **Example**: `{"from": "pm", "to": "qa", "reason": "agent_request", ...}`.

    **Use instead**: the PM assigns the task to the developer, who hands to QA (`ready_for_qa`).
    """
    for index, entry in enumerate(document.data["handoffs"]):
        source, target = entry.get("from"), entry.get("to")
        if source in AGENTS and target in AGENTS and (source, target) not in ALLOWED_PAIRS:
            yield Hit(
                document,
                f"/handoffs/{index}/to",
                f"handoff {source} -> {target} is no route of the protocol (no reason hands over so)",
            )


def unique_item_ids(document: Document, settings: Settings) -> Iterator[Hit]:
    """Two items of prd.json have the same id.

    **What it does**: reports every item whose `id` an earlier item already has.

    **Why is this bad?** Agents find items by id: a handoff about `feat-002` may mark the wrong
    one done, and the other stays open for ever.

    **Example**: two items with `"id": "feat-002"`.

    **Use instead**: give every item its own id (`feat-002`, `feat-003`).
    """
    first: dict[str, int] = {}
    for index, item in enumerate(_items(document)):
        item_id = item["id"]
        if item_id in first:
            yield Hit(
                document,
                f"/items/{index}/id",
                f"item id {item_id!r} is already used by item {first[item_id]}",
                related=((document, f"/items/{first[item_id]}/id", "first use"),),
            )
        else:
            first[item_id] = index


def known_dependencies(document: Document, settings: Settings) -> Iterator[Hit]:
    """An item of prd.json depends on an id no item has.

    **What it does**: reports each entry of an item's `dependencies` that is no item's `id`.

    **Why is this bad?** The PM waits for dependencies to pass before assigning an item; one
    that does not exist never passes, so the item is never assigned.

    **Example**: `"dependencies": ["feat-01"]` when the item is `feat-001`.

    **Use instead**: the id exactly as the item spells it, or no dependency.
    """
    items = _items(document)
    ids = {item["id"] for item in items}
    for index, item in enumerate(items):
        for position, dependency in enumerate(item.get("dependencies") or ()):
            if dependency not in ids:
                yield Hit(
                    document,
                    f"/items/{index}/dependencies/{position}",
                    f"dependency {dependency!r} is no item's id",
                )
