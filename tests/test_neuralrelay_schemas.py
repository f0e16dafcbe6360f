"""Our NeuralRelay schemas: valid draft-07, accept our fixture chains and the real handoffs, as strict as upstream."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from jsonschema.protocols import Validator

from pytest_handoff.validation.formats import is_rfc3339_date_time
from pytest_handoff.validation.schemas import build_validator

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas" / "neuralrelay"
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures" / "neuralrelay"
CORPUS_DIR = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "neuralrelay"
EXAMPLE_DIRS = (
    CORPUS_DIR / "examples" / "sample-handoffs",
    CORPUS_DIR / "tests" / "self-test" / "expected-handoffs",
)

HANDOFF_TYPES = ("requirements", "dev_to_test", "test_to_review", "review_final")
SCHEMA_NAMES = (*HANDOFF_TYPES, "rework")

# Keywords the strictness walk knows how to compare; anything else in an upstream
# schema would be skipped silently, so its presence fails the walk instead.
KNOWN_KEYWORDS = {
    "$schema", "$id", "title", "description", "type", "const", "enum", "format",
    "required", "properties", "additionalProperties", "items",
    "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minProperties", "maxProperties",
}  # fmt: skip
LOWER_BOUNDS = ("minItems", "minLength", "minimum", "exclusiveMinimum", "minProperties")
UPPER_BOUNDS = ("maxItems", "maxLength", "maximum", "exclusiveMaximum", "maxProperties")

# The one free-form map in the protocol: term -> meaning.
OPEN_MAPS = {"domain_glossary"}


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _our_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = _load(SCHEMA_DIR / f"{name}.schema.json")
    return schema


def _their_schema(handoff_type: str) -> dict[str, Any]:
    schema: dict[str, Any] = _load(CORPUS_DIR / "schemas" / f"{handoff_type.replace('_', '-')}.schema.json")
    return schema


def _validator(name: str) -> Validator:
    """The validator the engine uses: draft-07 with our own strict date-time check."""
    return build_validator(_our_schema(name))


def _error_keywords(name: str, document: dict[str, Any]) -> set[str]:
    return {str(error.validator) for error in _validator(name).iter_errors(document)}


def _real_examples() -> list[Path]:
    return sorted(path for folder in EXAMPLE_DIRS if folder.is_dir() for path in folder.glob("*.json"))


def _needs_corpus() -> None:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"the public NeuralRelay corpus is not beside this checkout (looked in {CORPUS_DIR})")


def _types(node: dict[str, Any]) -> set[str]:
    kind = node.get("type", [])
    return {kind} if isinstance(kind, str) else set(kind)


def _assert_at_least_as_strict(theirs: dict[str, Any], ours: dict[str, Any], where: str) -> None:
    unknown = set(theirs) - KNOWN_KEYWORDS
    assert not unknown, f"{where}: upstream uses keywords the walk cannot compare: {unknown}"

    their_types, our_types = _types(theirs), _types(ours)
    if their_types:
        allowed = their_types | ({"integer"} if "number" in their_types else set())
        assert our_types, f"{where}: upstream has type {their_types}, ours has none"
        assert our_types <= allowed, f"{where}: type {our_types} is not within {allowed}"

    for keyword in ("const", "format"):
        if keyword in theirs:
            assert ours.get(keyword) == theirs[keyword], f"{where}: {keyword} differs"

    if "enum" in theirs:
        assert "enum" in ours, f"{where}: upstream enum is missing"
        assert set(ours["enum"]) <= set(theirs["enum"]), f"{where}: enum allows more values"

    for keyword in LOWER_BOUNDS:
        if keyword in theirs:
            assert keyword in ours, f"{where}: {keyword} is missing"
            assert ours[keyword] >= theirs[keyword], f"{where}: {keyword} is looser"
    for keyword in UPPER_BOUNDS:
        if keyword in theirs:
            assert keyword in ours, f"{where}: {keyword} is missing"
            assert ours[keyword] <= theirs[keyword], f"{where}: {keyword} is looser"

    missing = set(theirs.get("required", [])) - set(ours.get("required", []))
    assert not missing, f"{where}: required fields missing: {missing}"

    if "object" in their_types:
        their_extra = theirs.get("additionalProperties", True)
        our_extra = ours.get("additionalProperties", True)
        if isinstance(their_extra, dict):
            assert isinstance(our_extra, dict), f"{where}: map values need a schema"
            _assert_at_least_as_strict(their_extra, our_extra, f"{where}.*")
        else:
            assert our_extra is False, f"{where}: additionalProperties must be false"

    our_properties = ours.get("properties", {})
    for name, their_property in theirs.get("properties", {}).items():
        assert name in our_properties, f"{where}: property {name!r} is missing"
        _assert_at_least_as_strict(their_property, our_properties[name], f"{where}.{name}")

    if "items" in theirs:
        assert "items" in ours, f"{where}: items schema is missing"
        _assert_at_least_as_strict(theirs["items"], ours["items"], f"{where}[]")


def _object_nodes(node: dict[str, Any], where: str) -> list[tuple[str, dict[str, Any]]]:
    found = [(where, node)] if "object" in _types(node) else []
    for name, child in node.get("properties", {}).items():
        found += _object_nodes(child, f"{where}.{name}")
    if isinstance(node.get("items"), dict):
        found += _object_nodes(node["items"], f"{where}[]")
    for index, option in enumerate(node.get("anyOf", [])):
        found += _object_nodes(option, f"{where}|{index}")
    return found


def _descriptions(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_descriptions(child) for child in node))
    if not isinstance(node, dict):
        return set()
    found = {node["description"]} if isinstance(node.get("description"), str) else set()
    for key, child in node.items():
        if key != "description":
            found |= _descriptions(child)
    return found


# Small valid handoffs written here, so the negative cases do not need the corpus.
MINIMAL: dict[str, dict[str, Any]] = {
    "dev_to_test": {
        "handoff_type": "dev_to_test",
        "files_changed": [{"path": "src/app.py", "change_type": "modified", "summary": "Add x"}],
        "functions_added": [],
        "unit_tests_written": {"count": 1, "passing": 1, "files": ["tests/t.py"], "summary": "x"},
        "coverage_gaps": [
            "error path when the config file is missing",
            "two writers updating the cache concurrently",
            "inputs longer than the 4 KiB buffer",
        ],
        "properties_believed": [
            {"property": "parse never raises", "confidence": "low", "evidence": "reading"}
        ],
        "known_risks": [],
        "integration_points": [],
        "tokens_used": 1200,
        "timestamp": "2026-03-22T14:45:18Z",
    },
    "review_final": {
        "handoff_type": "review_final",
        "verdict": "approved",
        "summary": "Small, clean change with tests for each path.",
        "issues": [],
        "quality_score": 8,
        "chain_quality": {
            "requirements_clarity": 8,
            "dev_handoff_completeness": 7,
            "test_coverage_adequacy": 9,
        },
        "total_tokens": 30000,
        "recommendations": [],
        "timestamp": "2026-03-22T16:45:00+01:00",
    },
    "rework": {
        "handoff_type": "rework",
        "rework_cycle": 1,
        "original_review_path": ".neuralrelay/handoffs/20260322-160000/04-review-agent.json",
        "issues_to_address": [
            "Corrupted review JSON crashes the history command",
            {
                "severity": "medium",
                "description": "Only 4 of 5 runs are listed when exactly 5 exist",
                "location": "commands/history.md",
            },
            {"description": "Document the output for incomplete chains"},
        ],
        "focus_areas": ["commands/history.md directory listing"],
        "verdict": "changes_requested",
        "tokens_used": 4100,
        "timestamp": "2026-03-22T17:02:11.250Z",
    },
}


_DROP = object()


def _changed(name: str, **changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(MINIMAL[name])
    for key, value in changes.items():
        if value is _DROP:
            del document[key]
        else:
            document[key] = value
    return document


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_one_of_our_schemas_is_a_valid_draft_07_schema(name: str) -> None:
    schema = _our_schema(name)
    Draft7Validator.check_schema(schema)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["$id"] == f"https://pytest-handoff.dev/schemas/neuralrelay/{name}.schema.json"
    assert schema["title"]


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_object_in_our_schemas_rejects_unknown_fields(name: str) -> None:
    for where, node in _object_nodes(_our_schema(name), name):
        extra = node.get("additionalProperties", True)
        if where.rsplit(".", 1)[-1] in OPEN_MAPS:
            assert isinstance(extra, dict), f"{where}: the map needs a value schema"
            assert node.get("propertyNames") == {"minLength": 1}, f"{where}: empty keys allowed"
        else:
            assert extra is False, f"{where}: additionalProperties is not false"


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_timestamp_in_our_schemas_is_a_date_time_string(name: str) -> None:
    timestamp = _our_schema(name)["properties"]["timestamp"]
    assert timestamp["type"] == "string"
    assert timestamp["format"] == "date-time"


# Numbered handoffs only: rework-N.json is written by NeuralRelay's process manager in a shape
# of its own (see tests/fixtures/neuralrelay/README.md).
FIXTURE_HANDOFFS = sorted(FIXTURES_DIR.glob("*/[0-9][0-9]-*.json"))


@pytest.mark.parametrize("path", FIXTURE_HANDOFFS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_handoff_of_our_fixture_chains_validates_under_our_schema(path: Path) -> None:
    document = _load(path)
    errors = [error.message for error in _validator(document["handoff_type"]).iter_errors(document)]
    assert not errors


def test_our_fixture_chains_hold_every_handoff_type() -> None:
    assert {_load(path)["handoff_type"] for path in FIXTURE_HANDOFFS} == set(HANDOFF_TYPES)
    assert len(FIXTURE_HANDOFFS) >= 30


def test_every_real_example_validates_under_our_schema() -> None:
    _needs_corpus()
    examples = _real_examples()
    assert len(examples) == 8
    seen_types = set()
    for path in examples:
        document = _load(path)
        handoff_type = document["handoff_type"]
        seen_types.add(handoff_type)
        errors = [error.message for error in _validator(handoff_type).iter_errors(document)]
        assert not errors, f"{path.name}: {errors}"
    assert seen_types == set(HANDOFF_TYPES)


@pytest.mark.parametrize("handoff_type", HANDOFF_TYPES)
def test_our_schema_is_at_least_as_strict_as_the_real_one(handoff_type: str) -> None:
    _needs_corpus()
    _assert_at_least_as_strict(_their_schema(handoff_type), _our_schema(handoff_type), handoff_type)


@pytest.mark.parametrize("handoff_type", HANDOFF_TYPES)
def test_our_descriptions_are_our_own_words(handoff_type: str) -> None:
    _needs_corpus()
    copied = _descriptions(_our_schema(handoff_type)) & _descriptions(_their_schema(handoff_type))
    assert not copied


@pytest.mark.parametrize("name", sorted(MINIMAL))
def test_the_small_handoffs_written_in_this_file_are_valid(name: str) -> None:
    assert _error_keywords(name, MINIMAL[name]) == set()


def test_a_valid_rework_handoff_validates() -> None:
    rework = {
        "rework_cycle": 2,
        "original_review_path": ".neuralrelay/handoffs/20260322-143052/04-review-agent.json",
        "issues_to_address": [
            {
                "severity": "high",
                "description": "Concurrent refreshAccessToken calls invalidate the refresh token",
                "location": "src/lib/tokens.ts:refreshAccessToken",
            },
            {"severity": "high", "description": "decryptToken returns '' instead of throwing"},
        ],
        "focus_areas": ["src/lib/tokens.ts", "src/lib/session.ts:findOrCreateUser"],
        "verdict": "needs_rework",
    }
    assert _error_keywords("rework", rework) == set()


@pytest.mark.parametrize(
    ("name", "document", "keyword"),
    [
        pytest.param(
            "dev_to_test",
            _changed("dev_to_test", coverage_gaps=MINIMAL["dev_to_test"]["coverage_gaps"][:2]),
            "minItems",
            id="coverage_gaps-with-two-items",
        ),
        pytest.param(
            "dev_to_test",
            _changed("dev_to_test", notes="an extra field"),
            "additionalProperties",
            id="extra-top-level-property",
        ),
        pytest.param(
            "dev_to_test",
            _changed("dev_to_test", timestamp="yesterday"),
            "format",
            id="timestamp-yesterday",
        ),
        pytest.param(
            "review_final",
            _changed("review_final", quality_score=11),
            "maximum",
            id="quality_score-of-11",
        ),
        pytest.param(
            "review_final",
            _changed("review_final", verdict="rejected"),
            "enum",
            id="unknown-verdict",
        ),
        pytest.param(
            "rework",
            _changed("rework", rework_cycle=0),
            "minimum",
            id="rework_cycle-0",
        ),
        pytest.param(
            "rework",
            _changed("rework", original_review_path=_DROP),
            "required",
            id="rework-without-original_review_path",
        ),
        pytest.param(
            "rework",
            _changed("rework", verdict="approved"),
            "enum",
            id="rework-after-an-approval",
        ),
        pytest.param(
            "rework",
            _changed("rework", issues_to_address=[]),
            "minItems",
            id="rework-with-no-issues",
        ),
    ],
)
def test_a_broken_handoff_fails_with_the_expected_keyword(
    name: str, document: dict[str, Any], keyword: str
) -> None:
    assert _error_keywords(name, document) == {keyword}


@pytest.mark.parametrize(
    "value",
    ["2026-03-22T14:30:52Z", "2026-03-22t14:30:52.123456789z", "2026-03-22T14:30:52-05:30"],
)
def test_the_date_time_check_accepts_rfc_3339_timestamps(value: str) -> None:
    assert is_rfc3339_date_time(value)


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2026-03-22",
        "2026-03-22 14:30:52Z",
        "2026-03-22T14:30:52",
        "2026-02-30T10:00:00Z",
        "2026-03-22T25:00:00Z",
        "2026-03-22T14:30:52Z\n",
    ],
)
def test_the_date_time_check_rejects_anything_else(value: str) -> None:
    assert not is_rfc3339_date_time(value)


def test_hs001_each_missing_property_is_reported_once() -> None:
    from pytest_handoff.read.strict_json import parse_json_bytes
    from pytest_handoff.validation.schemas import compiled_schema

    raw = b'{"handoff_type": "test_to_review", "tokens_used": 5}'
    document = parse_json_bytes(raw, Path("03-test-agent.json"), "03-test-agent.json").document
    assert document is not None
    messages = [f.message for f in compiled_schema("neuralrelay/test_to_review").findings(document)]
    assert messages
    assert len(messages) == len(set(messages))
    assert all(m.startswith("missing required property") for m in messages)
