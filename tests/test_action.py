"""The GitHub Action's step (action/run.sh), run as GitHub runs it: its INPUT_* and GITHUB_* variables."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow  # whole runs of the command


def run_action(
    project: Path, tmp_path: Path, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(REPO),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_WORKSPACE": str(project),
        "INPUT_INSTALL": "none",  # the package under test is on PYTHONPATH already
        **{f"INPUT_{key.upper().replace('-', '_')}": value for key, value in inputs.items()},
    }
    done = subprocess.run(
        ["bash", str(REPO / "action" / "run.sh")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, summary, output


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "neuralrelay" / "broken", tmp_path / "project")
    (tmp_path / "project" / ".git").mkdir()
    return tmp_path / "project"


def test_a_broken_chain_fails_the_step_with_annotations_a_summary_and_sarif(
    broken: Path, tmp_path: Path
) -> None:
    done, summary, output = run_action(broken, tmp_path, sarif="out.sarif")
    assert done.returncode == 1, done.stderr
    assert "::error file=.neuralrelay/handoffs/20261104-132000/" in done.stdout
    assert summary.read_text().startswith("## handoff-lint")
    sarif = json.loads((broken / "out.sarif").read_text())
    assert sarif["runs"][0]["results"]
    assert output.read_text() == "sarif=out.sarif\n"


def test_a_clean_chain_passes_the_step(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "neuralrelay" / "clean", tmp_path / "project")
    (tmp_path / "project" / ".git").mkdir()
    done, _, _ = run_action(tmp_path / "project", tmp_path, sarif="")
    assert done.returncode == 0, done.stderr


def test_ev101_the_step_judges_claims_by_default_and_evidence_false_turns_it_off(tmp_path: Path) -> None:
    from tests.agent_loop import DEV, Project, in_git

    project = in_git(Project(tmp_path / "project"))
    project.replace(
        DEV, project.changed(DEV, lambda data: data["files_changed"][0].update(path="made/up.py"))
    )
    done, _, _ = run_action(project.root, tmp_path, sarif="")
    assert done.returncode == 1, done.stderr
    assert "EV101" in done.stdout
    done, _, _ = run_action(project.root, tmp_path, sarif="", evidence="false")
    assert done.returncode == 0, done.stdout


def test_paths_are_split_into_arguments_and_never_run_as_shell(broken: Path, tmp_path: Path) -> None:
    done, _, _ = run_action(broken, tmp_path, paths="$(touch pwned) `touch pwned2`", sarif="")
    assert done.returncode == 2  # no such files: a usage error naming them
    assert "$(touch" in done.stderr
    assert not (broken / "pwned").exists()
    assert not (broken / "pwned2").exists()


def test_the_action_passes_its_inputs_to_the_script_as_variables_only() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text())
    step = action["runs"]["steps"][0]
    assert "${{" not in step["run"]
    assert set(step["env"]) == {f"INPUT_{name.upper().replace('-', '_')}" for name in action["inputs"]} - {
        "INPUT_UPLOAD_SARIF"
    } | {"INPUT_BASE_SHA"}  # the pull request's base commit, from the event


def test_the_github_page_shows_the_workflow_file_that_uses_the_action() -> None:
    workflow = (REPO / "hooks" / "github-workflow.yml").read_text()
    assert f"```yaml\n{workflow}```" in (REPO / "docs" / "github.md").read_text()
    steps = yaml.safe_load(workflow)["jobs"]["handoffs"]["steps"]
    action = yaml.safe_load((REPO / "action.yml").read_text())
    used = next(step for step in steps if "pytest-handoff" in step.get("uses", ""))
    assert set(used["with"]) <= set(action["inputs"])


def test_fail_on_warning_fails_the_step_on_a_warning_that_error_lets_pass(
    broken: Path, tmp_path: Path
) -> None:
    (broken / "pyproject.toml").write_text('[tool.handoff.severity]\nHS = "warning"\nNR = "warning"\n')
    done, _, _ = run_action(broken, tmp_path, sarif="", evidence="false")
    assert done.returncode == 0, done.stdout
    assert "::warning file=" in done.stdout
    done, _, _ = run_action(broken, tmp_path, sarif="", evidence="false", **{"fail-on": "warning"})
    assert done.returncode == 1, done.stdout


def test_changed_only_checks_what_a_pull_request_changes_against_its_base(tmp_path: Path) -> None:
    from tests.agent_loop import git

    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "neuralrelay" / "broken", project)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "an old broken chain")
    base = git(project, "rev-parse", "HEAD").strip()
    shutil.copytree(
        EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay", project / ".neuralrelay", dirs_exist_ok=True
    )
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a new clean chain")
    pull_request = {"changed-only": "true", "base_sha": base, "sarif": "", "evidence": "false"}
    done, _, _ = run_action(project, tmp_path, **pull_request)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "20261104-132000" not in done.stdout  # the old chain was not checked
    done, _, _ = run_action(project, tmp_path, **{**pull_request, "base_sha": ""})  # a push: everything
    assert done.returncode == 1
    # The pull request now changes a file of the old chain: that chain is checked, as a chain.
    review = next(project.glob(".neuralrelay/handoffs/20261104-132000/04-*.json"))
    review.write_text(review.read_text() + "\n")
    git(project, "commit", "-q", "-am", "touch the old chain")
    done, _, _ = run_action(project, tmp_path, **pull_request)
    assert done.returncode == 1
    assert "::error file=.neuralrelay/handoffs/20261104-132000/04-review-agent.json" in done.stdout
