"""Rules across the files of a phase folder: folder numbers, escalation ids, the integration gate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.profiles.yolo.format import V2_PREFIX
from pytest_handoff.profiles.yolo.layout import (
    ESCALATION_LOG,
    EXECUTION_STATE,
    INTEGRATION_GATE,
    Phase,
    is_plan_or_summary,
    phase_of,
    plan_file,
    plan_id,
    same_number,
)
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: Flat message types and the key that holds their phase.
_PHASE_KEYS = {
    "critique_result": "phase",
    "architecture_design": "phase",
    "phase_progress": "phase",
    "design_handoff": "phase",
    "department_result": "phase",
    "owner_review": "phase",
    "owner_signoff": "phase",
    "phase_handoff": "from_phase",
}


def _by_file(chain: Group) -> dict[Path, list[Document]]:
    files: dict[Path, list[Document]] = {}
    for document in chain.documents:
        files.setdefault(document.path, []).append(document)
    return files


def _plan_ids_of(document: Document) -> Iterator[tuple[str, str]]:
    """(pointer, plan id) of every plan id a document states (messages and artifact lines)."""
    data = document.data
    if not isinstance(data, dict):
        return
    if document.handoff_type is not None and document.handoff_type.startswith(V2_PREFIX):
        payload = data.get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("plan_id"), str):
            yield "/payload/plan_id", payload["plan_id"]
        return
    for key in ("plan_id", "plan"):
        if isinstance(data.get(key), str):
            yield f"/{key}", data[key]
    plans = data.get("plans")
    if isinstance(plans, list):
        for index, item in enumerate(plans):
            if isinstance(item, str):
                yield f"/plans/{index}", item
            elif isinstance(item, dict):
                for key in ("id", "plan"):
                    if isinstance(item.get(key), str):
                        yield f"/plans/{index}/{key}", item[key]


def _phase_of_message(document: Document) -> tuple[str, Any] | None:
    """(pointer, value) of the phase a message states (None for artifact lines and phaseless types)."""
    data = document.data
    handoff_type = document.handoff_type
    if handoff_type is None or not isinstance(data, dict) or not document.schema_valid:
        return None
    if handoff_type.startswith(V2_PREFIX):
        return ("/phase", data["phase"]) if "phase" in data else None
    key = _PHASE_KEYS.get(handoff_type)
    return (f"/{key}", data[key]) if key is not None and key in data else None


def check_folder_numbers(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A plan id or phase number disagrees with the folder or file it sits in.

    **What it does**: in a phase folder `phases/NN-slug/`, reports a file named for another
    phase (`MM-01.plan.jsonl`), a message whose phase (`phase`, a phase handoff's `from_phase`)
    is not NN, and a plan id (`plan_id`, an artifact's `plan` or `plans`) of another phase. In a
    plan's own files (`NN-MM.plan.jsonl`, `NN-MM.summary.jsonl`, anywhere) the header's `p` and `n`
    must be NN and MM, and a message's plan id must be `NN-MM`. Numbers compare as numbers
    (`"5"` is `"05"`).

    **Why is this bad?** YOLO finds a phase's plans, summaries and messages by these numbers: a
    plan filed under the wrong phase is executed, verified and reported with the wrong one.

    **Example**: `phases/05-escalation/05-02.plan.jsonl` whose first line is `{"p": "04", "n": "02", ...}`.

    **Use instead**: `{"p": "05", "n": "02", ...}` (or move the plan to phase 04's folder).
    """
    for path, documents in _by_file(chain).items():
        phase = phase_of(path)
        named = plan_file(path.name)
        first = documents[0]
        if phase is not None and named is not None and not same_number(named[0], phase.number):
            yield Hit(
                first,
                "",
                f"{path.name} is named for phase {named[0]} but sits in phase folder {phase.folder.name}",
            )
        own = named[:2] if named is not None and is_plan_or_summary(path.name) else None
        if own is not None:
            yield from _header_numbers(first, *own)
        for document in documents:
            yield from _document_numbers(document, phase, own)


def _header_numbers(header: Document, phase: str, plan: str) -> Iterator[Hit]:
    data = header.data
    if not isinstance(data, dict) or data.get("type") is not None:
        return
    name = header.name
    for key, wanted, what in (("p", phase, "phase"), ("n", plan, "plan number")):
        if key in data and not same_number(data[key], wanted):
            yield Hit(
                header, f"/{key}", f"{what} {data[key]!r} in the header of {name}, whose name says {wanted}"
            )


def _document_numbers(document: Document, phase: Phase | None, own: tuple[str, str] | None) -> Iterator[Hit]:
    """Hits for a document's phase and plan ids against its folder (``phase``) and plan file (``own``)."""
    stated = _phase_of_message(document)
    if stated is not None and phase is not None and not same_number(stated[1], phase.number):
        yield Hit(
            document,
            stated[0],
            f"phase {stated[1]!r} but the message sits in phase folder {phase.folder.name}",
        )
    if document.handoff_type is not None and not document.schema_valid:
        return  # the schema reports the message's fields first
    for pointer, stated_id in _plan_ids_of(document):
        ids = plan_id(stated_id)
        if ids is None:
            continue
        in_own_file = own is not None and pointer in ("/plan_id", "/plan", "/payload/plan_id")
        if (
            own is not None
            and in_own_file
            and not (same_number(ids[0], own[0]) and same_number(ids[1], own[1]))
        ):
            yield Hit(
                document,
                pointer,
                f"plan {stated_id!r} in {document.name}, the files of plan {own[0]}-{own[1]}",
            )
            continue
        if phase is not None and not same_number(ids[0], phase.number):
            yield Hit(
                document,
                pointer,
                f"plan {stated_id!r} belongs to phase {ids[0]}, not to this folder's {phase.folder.name}",
            )


def _known_escalations(chain: Group, first: Document) -> tuple[set[str], list[str]] | None:
    """Escalation ids the project records for a group, and the files they came from.

    None when no record exists or one that exists cannot be read (nothing can be said then).
    """
    from pytest_handoff.profiles.yolo.project import escalation_ids, planning_escalations

    ids: set[str] = set()
    sources: list[str] = []
    for path in chain.ref.paths:
        if path.name not in (EXECUTION_STATE, ESCALATION_LOG):
            continue
        documents = [doc for doc in chain.documents if doc.path == path]
        if not documents:
            return None  # present but unparsable: its findings say why
        sources.append(documents[0].display_path)
        if path.name == EXECUTION_STATE:
            ids |= escalation_ids(documents[0].data) or set()
        else:
            ids |= {
                doc.data["id"]
                for doc in documents
                if isinstance(doc.data, dict) and isinstance(doc.data.get("id"), str)
            }
    top = planning_escalations(first.path)
    if top is not None:
        path, top_ids = top
        if top_ids is None and not _lists_no_escalations(path):
            return None
        ids |= top_ids or set()
        sources.append(f"{path.parent.name}/{path.name}")
    return (ids, sources) if sources else None


def _lists_no_escalations(path: Path) -> bool:
    """True when a state file parses (as JSON) but has no escalations list."""
    import json

    from pytest_handoff.read.files import read_file_bytes

    raw = read_file_bytes(path, str(path))
    try:
        return isinstance(raw, bytes) and isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False


def check_escalation_known(chain: Group, settings: Settings) -> Iterator[Hit]:
    """An escalation resolution or timeout warning names an escalation the project has no record of.

    **What it does**: when the phase folder or `.yolo-planning/` holds an `.execution-state.json`
    (or the folder an `escalation.jsonl`), reports an `escalation_resolution` or
    `escalation_timeout_warning` whose `original_escalation` is none of the ids recorded there
    (`escalations[].id`, the log's `id`). Nothing is said when no record exists, or one cannot be
    read.

    **Why is this bad?** The Lead routes a resolution to the agent blocked by that escalation and
    marks it resolved; with an id that matches nothing, the agent stays blocked and the decision
    is lost.

    **Example**: `"original_escalation": "ESC-01-02-T3"` while `.execution-state.json` records
    only `ESC-01-02-T4`.

    **Use instead**: the id as recorded: `"original_escalation": "ESC-01-02-T4"`.
    """
    referring = chain.valid("escalation_resolution") + chain.valid("escalation_timeout_warning")
    if not referring:
        return
    known = _known_escalations(chain, referring[0])
    if known is None:
        return
    ids, sources = known
    for document in referring:
        wanted = document.data["original_escalation"]
        if wanted not in ids:
            # Escalation ids differ from each other in a digit or two: suggest only a near match.
            hint = did_you_mean(wanted, ids, cutoff=0.8)
            recorded = f"{len(ids)} escalation(s)" if ids else "no escalation"
            yield Hit(
                document,
                "/original_escalation",
                f"no escalation {wanted!r} in {' or '.join(sources)} (it records {recorded}){hint}",
            )


def _blocked_handoffs(chain: Group) -> list[Document]:
    """The latest dept_handoff of each department pair, where it still lists blockers."""
    latest: dict[tuple[str, str], Document] = {}
    for document in chain.valid("dept_handoff"):
        latest[(document.data["from_dept"], document.data["to_dept"])] = document
    return [doc for doc in latest.values() if doc.data["blockers"]]


def _gate_passes(chain: Group) -> Iterator[tuple[Document, str, str]]:
    """(document, pointer, claim) of each record saying the integration gate passed."""
    gate_lines = [
        doc
        for doc in chain.documents
        if doc.name == INTEGRATION_GATE and isinstance(doc.data, dict) and "type" not in doc.data
    ]
    if gate_lines:
        last = gate_lines[-1]  # the gate's latest run
        checks = last.data.get("checks")
        if last.data.get("r") == "PASS":
            yield last, "/r", "the integration gate's latest result is PASS"
        elif isinstance(checks, dict) and checks.get("handoffs") == "pass":
            yield last, "/checks/handoffs", "the integration gate's handoffs check passes"
    for signoff in chain.valid("owner_signoff"):
        if signoff.data.get("integration_qa") == "PASS":
            yield signoff, "/integration_qa", "the owner's sign-off says integration QA passed"


def check_gate_sees_blockers(chain: Group, settings: Settings) -> Iterator[Hit]:
    """The integration gate passes a phase whose department handoff still has blockers.

    **What it does**: in a phase folder, takes the latest `dept_handoff` of each pair of
    departments; when one lists `blockers`, reports the latest line of
    `integration-gate-result.jsonl` if its `r` is `PASS` (or its `checks.handoffs` is `pass`), and
    an `owner_signoff` whose `integration_qa` is `PASS`, naming the handoff's blockers.

    **Why is this bad?** YOLO's integration gate must fail while a department handoff has
    blockers: the receiving department builds on something unfinished, and the phase ships with it.

    **Example**: `dept-handoff.jsonl` holds `{"type": "dept_handoff", "from_dept": "uiux", "to_dept": "frontend", "blockers": ["tokens for dark mode"], ...}`
    and `integration-gate-result.jsonl` ends with `{"r": "PASS", ...}`.

    **Use instead**: resolve the blockers and append a `dept_handoff` with `"blockers": []`, or
    record the gate as `"r": "FAIL"`.
    """
    blocked = _blocked_handoffs(chain)
    if not blocked:
        return
    for document, pointer, claim in _gate_passes(chain):
        for handoff in blocked:
            blockers = handoff.data["blockers"]
            yield Hit(
                document,
                pointer,
                f"{claim}, but the {handoff.data['from_dept']} -> {handoff.data['to_dept']} handoff "
                f"still has {len(blockers)} blocker(s): {blockers[0]!r}",
                related=((handoff, "/blockers", "blockers"),),
            )
