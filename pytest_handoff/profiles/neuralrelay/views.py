"""NeuralRelay's chains as people read them: what ``handoff-lint chain`` and ``report`` show.

Property matching and criterion tracing come from the rules' own typed functions
(:func:`~pytest_handoff.profiles.neuralrelay.classification.classifications` and
:func:`~pytest_handoff.profiles.neuralrelay.tracing.criterion_traces`), never from trace notes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_handoff.profiles.neuralrelay.format import CHAIN_ID, NAME, NUMBERED_FILE, REWORK_FILE
from pytest_handoff.values.view_model import Bug, ChainView, Criterion, Property, Stage, generic_view

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group


def summarise(chain: Group) -> ChainView:
    """The task, stages, criteria with their traces, properties with their classifications, bugs, verdict."""
    from pytest_handoff.profiles.neuralrelay.classification import classifications
    from pytest_handoff.profiles.neuralrelay.tracing import criterion_traces

    view = generic_view(NAME, chain)
    stages = tuple(_named_stage(stage) for stage in view.stages)
    requirements = chain.first("requirements")
    dev = chain.first("dev_to_test")
    task = ""
    if requirements is not None:
        task = requirements.data["task_summary"]
    elif dev is not None and dev.data.get("inline_requirements"):
        task = "; ".join(dev.data["inline_requirements"])  # quick mode: no BA stage
    else:  # a requirements handoff that fails its schema may still state its task
        stated = [
            doc.data.get("task_summary")
            for doc in chain.documents
            if doc.handoff_type == "requirements" and isinstance(doc.data, dict)
        ]
        task = next((text for text in stated if isinstance(text, str)), "")

    traced = {trace.at: trace for trace in criterion_traces(chain)}
    criteria = []
    if requirements is not None:
        for index, text in enumerate(requirements.data["acceptance_criteria"]):
            trace = traced.get(index)
            where = f"{trace.document.name} {trace.pointer}" if trace and trace.document else ""
            criteria.append(
                Criterion(f"AC{index + 1}", text, bool(where), where, trace.what if trace else "")
            )

    properties = []
    cycles = classifications(chain)
    # After rework, the last cycle's dev handoff states what is believed now.
    cycle = cycles[-1] if cycles else None
    believer = cycle.dev if cycle is not None else dev
    if believer is not None:
        entries = cycle.entries if cycle is not None else []
        for index, prop in enumerate(believer.data["properties_believed"]):
            entry = next((e for e in entries if e.property_index == index), None)
            properties.append(
                Property(
                    label=f"P{index + 1}",
                    text=prop["property"],
                    confidence=prop.get("confidence"),
                    classification=entry.category if entry else None,
                    method=entry.score.method if entry else "",
                    where=f"{entry.test.name} {entry.pointer}" if entry else "",
                    matched_text=entry.text if entry else "",
                )
            )

    bugs = []
    for test in chain.valid("test_to_review"):
        for index, bug in enumerate(test.data["bugs_found"]):
            bugs.append(
                Bug(
                    bug["severity"],
                    bug["description"],
                    bug["location"],
                    bug["counterexample"],
                    f"{test.name} /bugs_found/{index}",
                )
            )

    reviews = chain.valid("review_final")
    review = reviews[-1] if reviews else None  # after rework, the last review decides
    started = _start_of(chain.group_id) or view.started  # the chain id is its start time
    rework_cycles = sum(1 for path in chain.ref.paths if REWORK_FILE.fullmatch(path.name))
    view = view._replace(
        stages=stages,
        started=started,
        task=task,
        criteria=tuple(criteria),
        properties=tuple(properties),
        bugs=tuple(bugs),
        rework_cycles=rework_cycles,
    )
    if review is None:
        return view
    data = review.data
    return view._replace(
        verdict=data["verdict"],
        quality_score=data["quality_score"],
        scores=tuple(data["chain_quality"].items()),
        total_tokens=data["total_tokens"],
        review_summary=data["summary"],
    )


def _named_stage(stage: Stage) -> Stage:
    """The agent of ``{NN}-{agent}.json`` (``rework`` for rework files)."""
    name = stage.file.rsplit("/", 1)[-1]
    numbered = NUMBERED_FILE.fullmatch(name)
    if numbered:
        return stage._replace(agent=numbered.group("agent"))
    return stage._replace(agent="rework") if REWORK_FILE.fullmatch(name) else stage


def _start_of(group_id: str) -> str | None:
    """The start time a ``YYYYMMDD-HHmmss`` chain id names, as RFC 3339 (None for other ids)."""
    match = CHAIN_ID.fullmatch(group_id)
    if match is None:
        return None
    date, time = match.group("date"), match.group("time")
    return f"{date[:4]}-{date[4:6]}-{date[6:]}T{time[:2]}:{time[2:4]}:{time[4:]}Z"
