"""The engine is multi-format: a source yields many documents, each placed in its file or logically.

Two toy profiles, in a registry of their own as plugins would be, stand in for the real formats:
one reads JSONL (a document a line), one opens a store itself (documents with a logical place).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.config import merged
from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.registry import Registry, default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.profiles.base import Profile
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.reporters import write_reports
from pytest_handoff.rules.rows import listed
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import NO_SETTINGS, Settings


def check_n_at_most_one(document: Document, settings: Settings) -> Iterator[Hit]:
    """``n`` is at most 1.

    **What it does**: reports ``n`` above 1. **Why is this bad?** toys count to one.
    **Example**: ``{"n": 2}``. **Use instead**: ``{"n": 1}``.
    """
    if isinstance(document.data, dict) and isinstance(document.data.get("n"), int) and document.data["n"] > 1:
        yield Hit(document, "/n", f"n is {document.data['n']}, above 1")


class ToyLines(Profile):
    name = "toylines"
    default_globs = ("toys/**/*.jsonl",)

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        return path.suffix == ".jsonl"

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        return None

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        documents: list[Document] = []
        findings: list[Finding] = []
        text = raw.decode("utf-8")
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            loaded = parse_json_bytes(line, path, display_path, origin=(number, 1), label=f"line {number}")
            findings.extend(loaded.findings)
            if loaded.document is not None:
                loaded.document.source_text = text
                documents.append(loaded.document)
        return Loaded(tuple(documents), tuple(findings))

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        return "toy", ()

    def schema_name(self, handoff_type: str) -> str:
        return "toy"

    def validate(self, document: Document, settings: Settings) -> list[Finding]:
        return []

    def rule_table(self) -> tuple:  # type: ignore[type-arg]
        return (listed("TY001", "n-at-most-one", check_n_at_most_one, profile=self.name),)


class ToyStore(ToyLines):
    name = "toystore"
    default_globs = ("**/*.toydb",)

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        return path.suffix == ".toydb"

    def opens_itself(self, path: Path) -> bool:
        return True

    def open(self, path: Path, display_path: str, settings: Settings) -> Loaded:
        rows = json.loads(path.read_text(encoding="utf-8"))  # a stand-in for a database
        return Loaded(
            tuple(
                Document(path, display_path, "", data, logical=f"rows/{key}", label=key)
                for key, data in rows.items()
            ),
            (),
        )

    def rule_table(self) -> tuple:  # type: ignore[type-arg]
        return (listed("TY002", "store-n-at-most-one", check_n_at_most_one, profile=self.name),)


@pytest.fixture
def toys() -> Registry:
    """The built-in profiles and the two toys, as if an entry point announced them."""
    return Registry(extra=(ToyLines(), ToyStore()), entry_points=False)


def test_a_jsonl_finding_points_at_its_line_and_the_column_inside_it(tmp_path: Path, toys: Registry) -> None:
    (tmp_path / "toys").mkdir()
    (tmp_path / "toys" / "a.jsonl").write_text('{"n": 1}\n\n{"id": "x",  "n": 7}\n', encoding="utf-8")
    _, results = check_paths([], tmp_path, Settings(), registry=toys)
    (finding,) = (f for result in results for f in result.findings)
    assert (finding.path, finding.line, finding.column, finding.code) == ("toys/a.jsonl", 3, 19, "TY001")
    assert results[0].sources["toys/a.jsonl"][2] == '{"id": "x",  "n": 7}'


def test_a_broken_jsonl_line_is_hf002_at_its_line_and_the_other_lines_are_still_checked(
    tmp_path: Path, toys: Registry
) -> None:
    (tmp_path / "toys").mkdir()
    (tmp_path / "toys" / "a.jsonl").write_text('{"n": 1,}\n{"n": 2}\n', encoding="utf-8")
    _, results = check_paths([], tmp_path, Settings(), registry=toys)
    places = sorted((f.code, f.line, f.column) for f in results[0].findings)
    assert places == [("HF002", 1, 8), ("TY001", 2, 7)]


def test_a_walk_finds_a_plugin_profiles_files_by_its_default_globs(tmp_path: Path, toys: Registry) -> None:
    (tmp_path / "toys" / "deep").mkdir(parents=True)
    (tmp_path / "toys" / "deep" / "b.jsonl").write_text('{"n": 1}\n', encoding="utf-8")
    (tmp_path / "elsewhere.jsonl").write_text('{"n": 9}\n', encoding="utf-8")
    refs = discover([], tmp_path, Settings(), registry=toys).groups
    assert [(ref.profile, ref.paths[0].name) for ref in refs] == [("toylines", "b.jsonl")]


def test_a_record_with_no_text_is_shown_at_its_logical_place_in_every_output(
    tmp_path: Path, toys: Registry
) -> None:
    store = tmp_path / "data.toydb"
    store.write_text(json.dumps({"r1": {"n": 1}, "r2": {"n": 5}}), encoding="utf-8")
    _, results = check_paths([store], tmp_path, Settings(), registry=toys)
    (finding,) = results[0].findings
    assert (finding.path, finding.line, finding.logical, finding.pointer) == (
        "data.toydb",
        0,
        "rows/r2",
        "/n",
    )
    assert finding.location == "data.toydb#rows/r2/n"

    outputs = {name: io.StringIO() for name in ("text", "json", "sarif", "github")}
    write_reports(results, list(outputs.items()), tmp_path)
    assert "data.toydb#rows/r2/n" in outputs["text"].getvalue()
    (entry,) = json.loads(outputs["json"].getvalue())["findings"]
    assert (entry["logical"], entry["location"]) == ("rows/r2", "data.toydb#rows/r2/n")
    (location,) = json.loads(outputs["sarif"].getvalue())["runs"][0]["results"][0]["locations"]
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "rows/r2/n"
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "data.toydb"
    assert "region" not in location["physicalLocation"]
    annotation = outputs["github"].getvalue()
    assert "file=data.toydb" in annotation
    assert "line=" not in annotation
    assert "rows/r2/n: n is 5" in annotation


def test_a_store_the_profile_opens_itself_is_never_taken_from_the_cache(
    tmp_path: Path, toys: Registry
) -> None:
    from pytest_handoff.pipeline.cache import ResultCache

    store = tmp_path / "data.toydb"
    store.write_text(json.dumps({"r1": {"n": 5}}), encoding="utf-8")
    cache = ResultCache(tmp_path / "cache", Settings().fingerprint())
    ref = GroupRef("toystore", "data", None, (store,))
    first = check_group(ref, Settings(), tmp_path, cache=cache, registry=toys)
    store.write_text(json.dumps({"r1": {"n": 1}}), encoding="utf-8")
    second = check_group(ref, Settings(), tmp_path, cache=cache, registry=toys)
    assert (len(first.findings), first.from_cache) == (1, False)
    assert (second.findings, second.from_cache) == ((), False)


def test_selecting_a_plugins_code_is_known(toys: Registry) -> None:
    assert {"TY001", "TY002"} <= set(toys.known_codes(["TY"]))
    assert not {"TY001", "TY002"} & set(Registry(entry_points=False).known_codes(["TY"]))


def test_selecting_neuralrelay_codes_loads_no_other_format() -> None:
    import subprocess
    import sys

    script = (
        "import sys; from pytest_handoff.pipeline.registry import Registry; Registry().known_codes(['NR3', 'HX001']); "
        "print(sorted(m for m in sys.modules if m.startswith('pytest_handoff.profiles.')))"
    )
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    loaded = {name.split(".")[2] for name in eval(shown)}
    assert loaded <= {"base", "builtin", "neuralrelay"}  # neuralrelay: the package and its modules


def test_neuralrelay_options_are_read_from_its_own_table_as_from_the_top_level(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import load_settings

    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.neuralrelay]\nmax-rework-cycles = 3\nglobs = ["chains/**/*.json"]\n', encoding="utf-8"
    )
    settings = load_settings(tmp_path, tables=default_registry())
    assert dict(settings.options_of("neuralrelay")) == {
        "max-rework-cycles": 3,
        "globs": ("chains/**/*.json",),
    }
    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff]\nmax-rework-cycles = 3\nglobs = ["chains/**/*.json"]\n', encoding="utf-8"
    )
    assert load_settings(tmp_path, tables=default_registry()) == settings  # the old top-level keys


def test_an_unknown_key_in_a_profiles_table_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import load_settings
    from pytest_handoff.values.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text(
        "[tool.handoff.neuralrelay]\nmax-rework-cycle = 3\n", encoding="utf-8"
    )
    with pytest.raises(
        ConfigError,
        match=r"\[tool.handoff.neuralrelay\]: unknown setting 'max-rework-cycle'; did you mean 'max-rework-cycles'",
    ):
        load_settings(tmp_path, tables=default_registry())


def test_profile_forces_a_format_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    from pytest_handoff.values.errors import ConfigError

    assert merged(Settings(), {"profile": "Trinity"}, "command line", default_registry()).profile == "trinity"
    with pytest.raises(ConfigError, match="unknown profile 'nosuch'"):
        merged(Settings(), {"profile": "nosuch"}, "command line", default_registry())


def test_a_secret_in_a_line_no_document_holds_is_masked_in_excerpts(tmp_path: Path, toys: Registry) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (tmp_path / "toys").mkdir()
    (tmp_path / "toys" / "a.jsonl").write_text(f'{{"n": 2}}\n{{"note": "{token}",\n', encoding="utf-8")
    _, results = check_paths([], tmp_path, Settings(ignore=("HX001",)), registry=toys)
    outputs = {name: io.StringIO() for name in ("text", "json", "sarif", "github", "markdown")}
    write_reports(results, list(outputs.items()), tmp_path)
    assert sorted(f.code for f in results[0].findings) == ["HF002", "TY001"]
    for name, stream in outputs.items():
        assert token[4:16] not in stream.getvalue(), name


def test_the_project_root_is_found_from_inside_a_yolo_planning_folder(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import project_root

    inside = tmp_path / "app" / ".yolo-planning" / "phases" / "01-x"
    inside.mkdir(parents=True)
    assert project_root(inside, default_registry().project_markers()) == tmp_path / "app"


@pytest.mark.parametrize("value", ["[1]", "[]", '""', "3"])
def test_globs_that_name_no_glob_are_refused_not_a_silent_end_to_checking(tmp_path: Path, value: str) -> None:
    from pytest_handoff.pipeline.config import load_settings
    from pytest_handoff.values.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text(f"[tool.handoff.yolo]\nglobs = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[tool.handoff.yolo\]: 'globs'"):
        load_settings(tmp_path, tables=default_registry())


def test_a_single_glob_may_be_written_as_a_string(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import load_settings

    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.yolo]\nglobs = "planning/**/*.jsonl"\n', encoding="utf-8"
    )
    assert load_settings(tmp_path, tables=default_registry()).options_of("yolo")["globs"] == (
        "planning/**/*.jsonl",
    )


def test_a_mistyped_profile_table_gets_a_suggestion(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import load_settings
    from pytest_handoff.values.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text(
        "[tool.handoff.yollo]\nglobs = ['x/*.jsonl']\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError, match="unknown setting 'yollo'; did you mean 'yolo'"):
        load_settings(tmp_path, tables=default_registry())


def test_a_pyproject_without_handoff_settings_is_not_parsed(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n[tool.ruff]\nline-length = 100\n')
    script = (
        "import sys; from pathlib import Path; from pytest_handoff.pipeline.config import load_settings; "
        "from pytest_handoff.pipeline.registry import Registry; "
        f"load_settings(Path({str(tmp_path)!r}), tables=Registry()); "
        "print('tomllib' in sys.modules, 'tomli' in sys.modules)"
    )
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert shown.split() == ["False", "False"]


def test_a_broken_pyproject_with_handoff_settings_is_still_an_error(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import load_settings
    from pytest_handoff.values.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text("[tool.handoff]\nselect = [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read configuration"):
        load_settings(tmp_path, tables=default_registry())
