"""Configuring contracts: pyproject tables or a YAML file, checked when the configuration loads.

Anything that cannot be used is a ConfigError (a usage error) naming the file at fault; schemas
are never fetched from the network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.pipeline.config import load_settings, merged
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.profiles.contracts.config import contracts_of
from pytest_handoff.profiles.contracts.schemas import _is_subset, _schema_problem, _subset_problem
from pytest_handoff.values.errors import ConfigError

PROJECT = Path(__file__).parent / "fixtures" / "contracts" / "project"

NOTE_TABLE = """
[tool.handoff.contracts.note]
globs = ["notes/*.json"]
schema = "schemas/note.schema.json"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    return tmp_path


def configure(root: Path, toml: str) -> Path:
    path = root / "pyproject.toml"
    path.write_text(toml, encoding="utf-8")
    return path


def use(root: Path) -> None:
    """Check the project: a contract's schemas are checked when it is first used."""
    check_paths([], root, load_settings(root, tables=default_registry()), registry=default_registry())


def write_schema(root: Path, name: str, schema: Any) -> None:
    (root / "schemas" / name).write_text(json.dumps(schema), encoding="utf-8")


def test_the_options_table_holds_each_contract_with_absolute_paths_and_a_schema_digest(project: Path) -> None:
    settings = load_settings(project, tables=default_registry())
    table = settings.options_of("contracts")
    assert set(table) == {"review", "note"}
    assert table["note"]["schema"] == str(project / "schemas" / "note.schema.json")
    assert table["review"]["schemas"]["report"] == str(project / "schemas" / "report.schema.yaml")
    assert table["review"]["group"] == "per-folder"
    assert table["review"]["rules"]["enough-criteria"] == {
        "check": "min-distinct-items",
        "types": ["plan"],
        "field": "/criteria",
        "min": 2,
    }
    assert table["note"]["digest"]
    # The table reads back into the same contracts (the engine parses it again at check time).
    assert [c.name for c in contracts_of(settings)] == ["review", "note"]


def test_a_changed_schema_changes_the_settings_fingerprint(project: Path) -> None:
    before = load_settings(project, tables=default_registry()).fingerprint()
    write_schema(project, "note.schema.json", {"type": "object", "required": ["title"]})
    assert load_settings(project, tables=default_registry()).fingerprint() != before


@pytest.mark.parametrize(
    ("toml", "words"),
    [
        (NOTE_TABLE + 'shema = "x.json"\n', "contract 'note': unknown key 'shema'; did you mean 'schema'?"),
        ('[tool.handoff.contracts.note]\nschema = "schemas/note.schema.json"\n', "needs 'globs'"),
        ('[tool.handoff.contracts.note]\nglobs = ["notes/*.json"]\n', "needs a 'schema'"),
        (NOTE_TABLE + 'group = "per-chain"\n', "'group' must be one of per-file, per-folder"),
        (
            NOTE_TABLE + "[tool.handoff.contracts.note.rules.x]\ncheck = 'min-items'\n",
            "'check' must be one of",
        ),
        (
            NOTE_TABLE
            + "[tool.handoff.contracts.note.rules.x]\ncheck = 'min-distinct-items'\nfield = '/tags'\n",
            "rule 'x': 'min-distinct-items' needs 'min'",
        ),
        (
            NOTE_TABLE
            + "[tool.handoff.contracts.note.rules.x]\ncheck = 'no-placeholders'\nfeilds = ['/a']\n",
            "rule 'x': unknown key 'feilds'; did you mean 'fields'?",
        ),
        (
            NOTE_TABLE
            + "[tool.handoff.contracts.note.rules.x]\ncheck = 'min-distinct-items'\nfield = '/t'\nmin = 0\n",
            "'min' must be a whole number of at least 1",
        ),
        (
            NOTE_TABLE
            + "[tool.handoff.contracts.note.rules.x]\ncheck = 'no-placeholders'\nplaceholders = ['re:(']\n",
            "placeholder 're:(' is not a regular expression",
        ),
        (
            '[tool.handoff.contracts.note]\nglobs = ["n/*.json"]\nschemas = {a = "schemas/note.schema.json"}\n',
            "'schemas' (a schema per value) needs a 'discriminator' field",
        ),
    ],
)
def test_an_unusable_contract_is_a_config_error_naming_the_pyproject(
    project: Path, toml: str, words: str
) -> None:
    path = configure(project, toml)
    with pytest.raises(ConfigError) as raised:
        load_settings(project, tables=default_registry())
    assert str(raised.value).startswith(f"{path}: [tool.handoff.contracts]")
    assert words in str(raised.value)


def test_a_missing_schema_file_is_a_config_error_naming_it(project: Path) -> None:
    configure(project, NOTE_TABLE.replace("note.schema.json", "gone.schema.json"))
    with pytest.raises(ConfigError, match=r"gone\.schema\.json: file not found"):
        use(project)


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": "strin"}, "'type' at the root must be one of"),
        ({"properties": {"n": {"minimum": "3"}}}, "'minimum' at /properties/n must be a number"),
        ({"required": "title"}, "'required' at the root must be a list"),
        # Definitions and $ref around fastcheck's keywords: checked alike, each at its place.
        (
            {"definitions": {"x": {"type": 12}}, "$ref": "#/definitions/x"},
            "'type' at /definitions/x must be one of",
        ),
        # Outside fastcheck's keywords: jsonschema's check_schema says it.
        ({"oneOf": [{"type": 12}]}, "12 is not valid under any of the given schemas"),
        (["not", "a", "schema"], "must be an object or a boolean"),
    ],
)
def test_a_schema_that_is_itself_invalid_is_a_config_error_naming_its_file(
    project: Path, schema: Any, words: str
) -> None:
    configure(project, NOTE_TABLE)
    write_schema(project, "note.schema.json", schema)
    with pytest.raises(ConfigError) as raised:
        use(project)
    assert str(raised.value).startswith(
        f"{project / 'pyproject.toml'}: [tool.handoff.contracts] contract 'note': "
    )
    assert f"schema {project / 'schemas' / 'note.schema.json'}: not a valid JSON Schema" in str(raised.value)
    assert words in str(raised.value)


def test_a_broken_schema_stops_no_run_until_a_contract_document_is_checked(project: Path) -> None:
    write_schema(project, "note.schema.json", {"type": "strin"})
    load_settings(
        project, tables=default_registry()
    )  # configuring contracts costs other runs nothing but reading the tables
    check_paths(
        [project / "reviews"],
        project,
        merged(
            load_settings(project, tables=default_registry()),
            {"profile": "neuralrelay"},
            "test",
            default_registry(),
        ),
        registry=default_registry(),
    )
    with pytest.raises(ConfigError, match="not a valid JSON Schema"):
        use(project)


def test_a_schema_that_is_not_json_is_a_config_error_naming_its_file(project: Path) -> None:
    configure(project, NOTE_TABLE)
    (project / "schemas" / "note.schema.json").write_text("{'type': 'object'}", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"note\.schema\.json: not valid JSON"):
        use(project)


REMOTE = "https://schemas.example.com/outcome.json"


def test_a_remote_ref_is_refused_and_the_message_says_how_to_map_it(project: Path) -> None:
    configure(project, NOTE_TABLE)
    write_schema(project, "note.schema.json", {"properties": {"outcome": {"$ref": REMOTE}}})
    with pytest.raises(ConfigError) as raised:
        use(project)
    message = str(raised.value)
    assert message.startswith(
        f"{project / 'pyproject.toml'}: [tool.handoff.contracts] contract 'note': schema "
    )
    assert str(project / "schemas" / "note.schema.json") in message
    assert f"$ref '{REMOTE}' is remote: schemas are never fetched from the network" in message
    assert "schema-map" in message


def test_a_remote_ref_mapped_to_a_local_file_validates_from_that_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import urllib.request

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the network was used")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    configure(
        project,
        '[tool.handoff.contracts]\nschema-map = {"' + REMOTE + '" = "schemas/outcome.json"}\n' + NOTE_TABLE,
    )
    write_schema(project, "outcome.json", {"enum": ["passed", "failed"]})
    write_schema(
        project,
        "note.schema.json",
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {"outcome": {"$ref": REMOTE}},
        },
    )
    (project / "notes" / "release.json").write_text('{"outcome": "pased"}\n', encoding="utf-8")
    _, results = check_paths(
        [], project, load_settings(project, tables=default_registry()), registry=default_registry()
    )
    (finding,) = (f for result in results for f in result.findings)
    assert (finding.code, finding.path, finding.line, finding.column) == (
        "HS001",
        "notes/release.json",
        1,
        13,
    )
    assert '"pased" is not one of "passed", "failed"' in finding.message


def test_a_relative_ref_resolves_from_the_schemas_own_folder(project: Path) -> None:
    (project / "reviews" / "sprint-1" / "02-report.yaml").write_text(
        "kind: report\nsummary: s\nresults:\n  - {criterion: c, outcome: maybe}\n"
        "totals: {run: 1, passed: 1, failed: 0}\nwritten_at: 2026-03-22T15:30:00Z\n",
        encoding="utf-8",
    )
    _, results = check_paths(
        [], project, load_settings(project, tables=default_registry()), registry=default_registry()
    )
    findings = [f for result in results for f in result.findings if f.code == "HS001"]
    assert [(f.path, f.line, f.column, f.pointer) for f in findings] == [
        ("reviews/sprint-1/02-report.yaml", 4, 29, "/results/0/outcome")
    ]


def test_a_relative_ref_to_a_missing_file_is_a_config_error(project: Path) -> None:
    configure(project, NOTE_TABLE)
    write_schema(project, "note.schema.json", {"properties": {"a": {"$ref": "defs/missing.json"}}})
    with pytest.raises(ConfigError, match=r"note\.schema\.json: \$ref '.*defs/missing\.json': no such file"):
        use(project)


CONTRACTS_FILE = """\
contracts:
  note:
    globs: ["notes/*.json"]
    schema: ../schemas/note.schema.json
    rules:
      real-body: {check: no-placeholders, fields: [/body]}
"""


def test_contracts_can_live_in_a_yaml_file_whose_paths_start_from_its_folder(project: Path) -> None:
    (project / "config").mkdir()
    (project / "config" / "contracts.yaml").write_text(CONTRACTS_FILE, encoding="utf-8")
    configure(project, '[tool.handoff.contracts]\nfile = "config/contracts.yaml"\n')
    settings = load_settings(project, tables=default_registry())
    (contract,) = contracts_of(settings)
    assert contract.name == "note"
    assert contract.schema == str(project / "config" / ".." / "schemas" / "note.schema.json")
    (project / "notes" / "release.json").write_text(
        '{"title": "t", "body": "TBD", "tags": []}\n', encoding="utf-8"
    )
    _, results = check_paths([], project, settings, registry=default_registry())
    assert [(f.code, f.rule, f.line, f.column) for r in results for f in r.findings] == [
        ("UC202", "real-body", 1, 24)
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            CONTRACTS_FILE.replace("globs", "glob"),
            "contract 'note': unknown key 'glob'; did you mean 'globs'?",
        ),
        (CONTRACTS_FILE + "extra: 1\n", "unknown key 'extra'"),
        (CONTRACTS_FILE + "contracts: {}\n", "4:1: duplicate key 'contracts'"[2:]),
        ("contracts: [a\n", "invalid YAML"),
    ],
)
def test_an_unusable_contracts_file_is_a_config_error_naming_that_file(
    project: Path, text: str, words: str
) -> None:
    (project / "contracts.yaml").write_text(text, encoding="utf-8")
    configure(project, '[tool.handoff.contracts]\nfile = "contracts.yaml"\n')
    with pytest.raises(ConfigError) as raised:
        load_settings(project, tables=default_registry())
    assert str(raised.value).startswith(str(project / "contracts.yaml"))
    assert words in str(raised.value)


def test_a_contract_declared_in_both_places_is_a_config_error(project: Path) -> None:
    (project / "contracts.yaml").write_text(CONTRACTS_FILE, encoding="utf-8")
    configure(project, '[tool.handoff.contracts]\nfile = "contracts.yaml"\n' + NOTE_TABLE)
    with pytest.raises(ConfigError, match="contract 'note' is declared twice"):
        load_settings(project, tables=default_registry())


# The meta-schema check that spares jsonschema's import must agree with jsonschema's check_schema.
SUBSET_SCHEMAS: list[Any] = [
    {"type": "object"},
    {"type": ["string", "null"]},
    {"type": []},
    {"type": ["string", "string"]},
    {"type": "strin"},
    {"minItems": 0},
    {"minItems": 2.0},
    {"minItems": -1},
    {"minItems": 1.5},
    {"minLength": True},
    {"maximum": "9"},
    {"exclusiveMinimum": 0.5},
    {"required": []},
    {"required": ["a", "a"]},
    {"required": ["a", 1]},
    {"enum": []},
    {"enum": "a"},
    {"const": {"any": ["thing"]}},
    {"anyOf": []},
    {"anyOf": [{"type": "string"}, True]},
    {"anyOf": [{"type": "sting"}]},
    {"properties": {"a": {"type": "number"}, "b": False}},
    {"properties": []},
    {"properties": {"a": 3}},
    {"items": {"type": "integer"}},
    {"items": {"minItems": "x"}},
    {"additionalProperties": False},
    {"additionalProperties": {"type": 1}},
    {"propertyNames": {"pattern": "^[a-z]+$"}},
    {"pattern": "(unclosed"},
    {"format": 7},
    {"title": ["x"]},
    {"examples": {}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "description": "fine"},
    True,
    False,
]


@pytest.mark.parametrize("schema", SUBSET_SCHEMAS)
def test_the_fast_meta_schema_check_agrees_with_jsonschemas_check_schema(schema: Any) -> None:
    from jsonschema import Draft7Validator, Draft202012Validator
    from jsonschema.exceptions import SchemaError

    assert _is_subset(schema)
    for validator in (Draft7Validator, Draft202012Validator):
        try:
            validator.check_schema(schema)
            valid = True
        except SchemaError:
            valid = False
        assert (_subset_problem(schema) is None) == valid, (validator.__name__, _subset_problem(schema))


def test_a_schema_beyond_fastchecks_keywords_is_checked_by_jsonschema() -> None:
    assert not _is_subset({"$ref": "#/definitions/x", "definitions": {"x": {}}})
    assert _schema_problem({"oneOf": "not a list"}) is not None
    assert _schema_problem({"oneOf": [{"type": "string"}]}) is None


def test_a_remote_ref_met_while_validating_is_a_finding_that_says_it_is_never_fetched(tmp_path: Path) -> None:
    from pytest_handoff.profiles.contracts.schemas import UserSchema
    from pytest_handoff.read.strict_json import parse_json_bytes

    document = parse_json_bytes(b'{"a": 1}', tmp_path / "x.json", "x.json").document
    assert document is not None
    # A schema set up in code, never checked: the registry refuses the network all the same.
    schema = UserSchema(str(tmp_path / "s.json"), {"properties": {"a": {"$ref": REMOTE}}}, {})
    (finding,) = schema.findings(document)
    assert (finding.code, finding.line) == ("HS001", 1)
    assert f"$ref '{REMOTE}' is remote: schemas are never fetched from the network" in finding.message
