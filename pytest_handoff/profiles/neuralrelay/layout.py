"""NeuralRelay layout rules (NR1xx): file names, sequence, stage and timestamp order, completeness."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from pytest_handoff.profiles.neuralrelay.cycles import cycles
from pytest_handoff.profiles.neuralrelay.format import (
    CHAIN_ID,
    NUMBERED_FILE,
    REWORK_FILE,
    STAGE,
    agents,
)
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


def _numbered(document: Document) -> re.Match[str] | None:
    return NUMBERED_FILE.fullmatch(document.name)


def _rework(document: Document) -> re.Match[str] | None:
    return REWORK_FILE.fullmatch(document.name)


def _timestamp(document: Document) -> datetime | None:
    value = document.data.get("timestamp") if isinstance(document.data, dict) else None
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


# --- layout ------------------------------------------------------------------


def check_file_names(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Files of a chain are named ``{NN}-{agent}.json`` or ``rework-{N}.json`` with a known agent.

    **What it does**: checks each file name of a chain folder against NeuralRelay's naming and the
    known agents (ba-agent, dev-agent, test-agent, security-agent, review-agent, plus any configured
    with `agents`).

    **Why is this bad?** NeuralRelay's commands find handoffs by name; a misnamed file is invisible to
    the next agent, and the agent in the name decides which contract applies.

    **Example**: `2-dev.json`, `02-developer.json`.

    **Use instead**: `02-dev-agent.json`.
    """
    if chain.ref.standalone:
        return
    known = agents(settings)
    for document in chain.documents:
        named = _numbered(document)
        if _rework(document) or (named and named.group("agent") in known):
            continue
        if named:
            message = (
                f"unknown agent {named.group('agent')!r} in file name; known agents: "
                f"{', '.join(sorted(known))} (configure more with 'agents'){did_you_mean(named.group('agent'), known)}"
            )
        else:
            message = "file name should be {NN}-{agent}.json or rework-{N}.json"
        yield Hit(document, "", message)


def check_agent_writes_its_type(document: Document, settings: Settings) -> Iterator[Hit]:
    """The agent in the file name writes the handoff type its role implies.

    **What it does**: compares `handoff_type` with the type the agent of `{NN}-{agent}.json` writes
    (ba-agent: requirements, dev-agent: dev_to_test, test-agent and security-agent: test_to_review,
    review-agent: review_final).

    **Why is this bad?** A review written into the test agent's slot means the chain skipped a stage
    or an agent overwrote another's output.

    **Example**: `03-test-agent.json` containing `"handoff_type": "review_final"`.

    **Use instead**: write the review to `04-review-agent.json`.
    """
    named = _numbered(document)
    implied = agents(settings).get(named.group("agent")) if named else None
    if implied is not None and document.handoff_type != implied:
        yield Hit(
            document,
            "/handoff_type",
            f"{named.group('agent') if named else ''} writes {implied!r} handoffs, "
            f"but this file declares {document.handoff_type!r}",
        )


def check_sequence_numbers(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Sequence numbers of a chain's files are unique and have no gaps, starting at 01.

    **What it does**: reads `NN` from `{NN}-{agent}.json` and reports a number used twice or a
    number skipped.

    **Why is this bad?** A gap means a handoff was lost or deleted; a duplicate means two agents
    claim the same step and the order of the chain is ambiguous.

    **Example**: `01-ba-agent.json`, `02-dev-agent.json`, `04-review-agent.json` (03 missing).

    **Use instead**: number the files 01, 02, 03, ... in the order the agents ran.
    """
    # Every member counts, parsed or not, so an unreadable file does not look like a gap;
    # findings go only to parsed files (the others have their own load finding).
    seen: dict[int, str] = {}
    expected = 1
    for path in chain.ref.paths:
        named = NUMBERED_FILE.fullmatch(path.name)
        if named is None:
            continue
        number = int(named.group("seq"))
        document = chain.document_at(path)
        if number in seen:
            if document is not None:
                yield Hit(document, "", f"sequence number {number:02d} is also used by {seen[number]}")
            continue
        if number > expected and document is not None:
            missing = ", ".join(f"{n:02d}" for n in range(expected, number))
            yield Hit(document, "", f"sequence jumps to {number:02d}: {missing} missing")
        seen[number] = path.name
        expected = max(expected, number + 1)


def check_stage_order(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Stages follow NeuralRelay's order: requirements, dev_to_test, test_to_review, review_final.

    **What it does**: walks the numbered files of each cycle in sequence order and reports a handoff
    whose stage comes before the stage of the file numbered before it. A rework file starts a new
    cycle, whose order starts again (at the dev stage).

    **Why is this bad?** Each agent consumes the previous agent's handoff; a test handoff written
    before the dev handoff tested nothing that the dev handoff describes.

    **Example**: `02-test-agent.json` followed by `03-dev-agent.json`.

    **Use instead**: run (and number) the agents in pipeline order.
    """
    for cycle in cycles(chain):
        yield from _check_cycle_order(cycle.documents)


def _check_cycle_order(documents: list[Document]) -> Iterator[Hit]:
    previous: Document | None = None
    for document in documents:
        if _numbered(document) is None or document.handoff_type not in STAGE:
            continue
        if previous is not None and STAGE[document.handoff_type] < STAGE[previous.handoff_type or ""]:
            yield Hit(
                document,
                "/handoff_type",
                f"{document.handoff_type} comes after {previous.handoff_type} ({previous.name}); "
                "expected order: " + " -> ".join(STAGE),
                related=((previous, "/handoff_type", "previous stage"),),
            )
        previous = document


def check_timestamp_order(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Timestamps do not go backwards along the chain's sequence.

    **What it does**: compares each handoff's `timestamp` with the latest earlier one (numbered files
    in order, then rework files).

    **Why is this bad?** A handoff stamped before the handoff it consumed was either edited by hand
    or produced from stale input.

    **Example**: `02-dev-agent.json` at `2026-03-22T14:45:18Z`, `03-test-agent.json` at
    `2026-03-22T14:02:33Z`.

    **Use instead**: stamp each handoff when it is written, in UTC.
    """
    latest: tuple[datetime, Document] | None = None
    for document in chain.valid():
        stamp = _timestamp(document)
        if stamp is None:
            continue
        if stamp.tzinfo is None:
            continue
        if latest is not None and stamp < latest[0]:
            yield Hit(
                document,
                "/timestamp",
                f"timestamp {document.data['timestamp']} is earlier than {latest[1].name}'s "
                f"{latest[1].data['timestamp']}",
                related=((latest[1], "/timestamp", "later timestamp"),),
            )
        else:
            latest = (stamp, document)


def check_chain_is_complete(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A chain has every stage: requirements, dev_to_test, test_to_review and review_final.

    **What it does**: reports the stages a chain folder lacks. A chain without requirements is
    complete when its dev handoff carries `inline_requirements` (NeuralRelay's quick mode).

    **Why is this bad?** An incomplete chain is a pipeline that stopped half-way, or files that were
    never committed; its later contracts cannot be checked.

    **Example**: a chain folder with `01-ba-agent.json` and `02-dev-agent.json` only.

    **Use instead**: commit the whole chain, or finish the pipeline run.
    """
    if chain.ref.standalone or not chain.documents:
        return
    present = {doc.handoff_type for doc in chain.documents}
    known = agents(settings)
    for path in chain.ref.paths:  # a file that did not parse still stands for its agent's stage
        named = NUMBERED_FILE.fullmatch(path.name)
        if named and chain.document_at(path) is None:
            present.add(known.get(named.group("agent")))
    dev = chain.first("dev_to_test")
    quick_mode = dev is not None and bool(dev.data.get("inline_requirements"))
    missing = [
        stage for stage in STAGE if stage not in present and not (stage == "requirements" and quick_mode)
    ]
    if missing:
        anchor = chain.documents[-1]
        yield Hit(anchor, "", f"chain {chain.group_id} is incomplete: no {', '.join(missing)} handoff")


def check_chain_id(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A chain folder is named by its start time, ``YYYYMMDD-HHmmss`` (optionally ``-N``).

    **What it does**: checks the folder name's shape and that it is a real date and time.

    **Why is this bad?** NeuralRelay sorts chains by name to find the newest run; other names break
    its history and resume commands.

    **Example**: `.neuralrelay/handoffs/oauth-login/`.

    **Use instead**: `.neuralrelay/handoffs/20260322-143052/`.
    """
    if chain.ref.standalone or not chain.documents:
        return
    match = CHAIN_ID.fullmatch(chain.group_id)
    valid = False
    if match:
        try:
            # Not strptime: its module costs every run milliseconds to import.
            date, time = match.group("date"), match.group("time")
            datetime(
                int(date[:4]), int(date[4:6]), int(date[6:]), int(time[:2]), int(time[2:4]), int(time[4:])
            )
            valid = True
        except ValueError:
            valid = False
    if not valid:
        yield Hit(
            chain.documents[0], "", f"chain folder {chain.group_id!r} is not a YYYYMMDD-HHmmss[-N] timestamp"
        )
