"""A schema error hides no contract: rules judge the well-formed parts of a malformed document and
say nothing of the malformed ones (pipeline/malformed.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pytest_handoff.api import check_folder
from tests.conftest import EXAMPLES

CHAIN = Path(".neuralrelay", "handoffs", "20261104-132000")


def broken_chain(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "neuralrelay" / "broken" / ".neuralrelay", tmp_path / ".neuralrelay")
    (tmp_path / ".git").mkdir()
    return tmp_path / CHAIN / "03-test-agent.json"


def codes_at(tmp_path: Path, name: str) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in check_folder(tmp_path) if f.path.endswith(name)]


def test_nr208_and_nr204_speak_in_the_run_that_reports_the_files_schema_error(tmp_path: Path) -> None:
    path = broken_chain(tmp_path)
    before = codes_at(tmp_path, "03-test-agent.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tokens_used"] = "about twenty thousand"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    after = codes_at(tmp_path, "03-test-agent.json")
    assert ("HS001", "/tokens_used") in after
    assert {"NR208", "NR204"} <= {code for code, _ in after}
    assert set(before) <= set(after)


def test_nr208_says_nothing_of_a_count_the_schema_found_malformed(tmp_path: Path) -> None:
    path = broken_chain(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["test_summary"]["total"] = "thirty-one"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    after = codes_at(tmp_path, "03-test-agent.json")
    assert ("HS001", "/test_summary/total") in after
    assert "NR208" not in {code for code, _ in after}
    assert "NR204" in {code for code, _ in after}  # the rest of the file is still judged
