"""What the reading views show of a group: plain values a profile fills in and every view renders.

A profile turns a checked chain into a :class:`ChainView` (``Profile.summarise``); the terminal,
Markdown and JSON renderings and the cross-chain report read only these values, so a new profile
gets every view by filling them in. Fields a format has no use for stay empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding


class Stage(NamedTuple):
    """One file of the chain, in the order it was written."""

    file: str  # display path
    agent: str  # who wrote it (from the file name), e.g. "dev-agent" or "rework"
    handoff_type: str | None
    timestamp: str | None
    tokens: int | None
    valid: bool  # parsed and schema-valid (its content is shown only then)


class Criterion(NamedTuple):
    """An acceptance criterion and where a later handoff traces it."""

    label: str  # "AC1"
    text: str
    traced: bool
    where: str  # "02-dev-agent.json /files_changed/0/summary" ("" when untraced)
    evidence: str  # what matched, or what was looked for


class Property(NamedTuple):
    """A believed property and the classification the test handoff gave it."""

    label: str  # "P1"
    text: str
    confidence: str | None
    classification: str | None  # confirmed, falsified, inconclusive; None: not classified
    method: str  # how the classification was matched to it
    where: str  # "03-test-agent.json /property_verification/confirmed/0"
    matched_text: str  # the classification entry as written


class Bug(NamedTuple):
    severity: str
    description: str
    location: str
    counterexample: str
    where: str  # file and pointer of the bug


class ChainView(NamedTuple):
    """One chain as people read it: the task, its stages, what was claimed, tested and decided."""

    profile: str
    group_id: str
    directory: str
    started: str | None  # RFC 3339 time of the first stage (or from the chain id)
    task: str
    stages: tuple[Stage, ...]
    criteria: tuple[Criterion, ...] = ()
    properties: tuple[Property, ...] = ()
    bugs: tuple[Bug, ...] = ()
    verdict: str | None = None
    quality_score: float | None = None
    #: Further scores of the review, e.g. NeuralRelay's chain_quality dimensions.
    scores: tuple[tuple[str, float], ...] = ()
    #: The range every score lies in (NeuralRelay: 1-10).
    score_range: tuple[float, float] = (1.0, 10.0)
    total_tokens: int | None = None
    rework_cycles: int = 0
    review_summary: str = ""
    #: Filled in by the views from the chain's result, not by the profile.
    findings: tuple[Finding, ...] = ()

    @property
    def failed(self) -> bool:
        from pytest_handoff.values.findings import Severity

        return any(f.severity >= Severity.ERROR for f in self.findings)

    @property
    def first_broken(self) -> Stage | None:
        """The first stage, in the order written, holding an error: where a contract first broke."""
        from pytest_handoff.values.findings import Severity

        broken = {f.path for f in self.findings if f.severity >= Severity.ERROR}
        return next((stage for stage in self.stages if stage.file in broken), None)

    def count(self, severity_name: str) -> int:
        return sum(1 for f in self.findings if f.severity.label == severity_name)


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` (named tuples, tuples, lists, dicts of them) with ``change`` applied to every string."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(map_strings(item, change) for item in value))
    if isinstance(value, (tuple, list)):
        return type(value)(map_strings(item, change) for item in value)
    if isinstance(value, dict):
        return {map_strings(key, change): map_strings(item, change) for key, item in value.items()}
    return value


def stage_of(document_path: str, agent: str, document: Any) -> Stage:
    """A stage from a document (None when the file did not parse), reading the usual field names."""
    data = getattr(document, "data", None)
    fields = data if isinstance(data, dict) else {}
    timestamp = fields.get("timestamp", fields.get("created_at"))
    tokens = fields.get("tokens_used")
    return Stage(
        file=document_path,
        agent=agent,
        handoff_type=getattr(document, "handoff_type", None),
        timestamp=timestamp if isinstance(timestamp, str) else None,
        tokens=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
        valid=bool(getattr(document, "schema_valid", False)),
    )


def generic_view(profile: str, chain: Any) -> ChainView:
    """What any profile's chain shows without knowing its format: its files and their times."""
    ref = chain.ref
    stages = []
    for path in ref.paths:
        document = chain.document_at(path)
        stages.append(
            stage_of(document.display_path if document is not None else path.name, path.stem, document)
        )
    started = next((stage.timestamp for stage in stages if stage.timestamp and stage.valid), None)
    return ChainView(profile, ref.group_id, "", started, "", tuple(stages))
