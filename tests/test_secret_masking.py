"""Secrets are masked by the engine in every output, whatever rules are selected (HX001 or not)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
CLEAN_CHAIN = Path(__file__).resolve().parents[1] / "examples" / "neuralrelay" / "clean" / ".neuralrelay"
DEV = "02-dev-agent.json"


# Rule selections under which HX001 does not run.
def leaks(text: str) -> bool:
    """True when ``text`` shows eight or more characters of the token in a row, in any case."""
    lowered = text.lower()
    return any(TOKEN[i : i + 8].lower() in lowered for i in range(len(TOKEN) - 7))


WITHOUT_HX001 = (["--ignore", "HX001"], ["--select", "NR2"], ["--select", "NR201,HS"])


@pytest.fixture
def leaky_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The clean example chain with one token in two duplicate coverage gaps (NR201) and a criterion."""
    shutil.copytree(CLEAN_CHAIN, tmp_path / ".neuralrelay")
    (chain,) = (tmp_path / ".neuralrelay" / "handoffs").iterdir()
    dev = json.loads((chain / DEV).read_text(encoding="utf-8"))
    gap = f"The staging deploy still reads GITHUB_TOKEN={TOKEN} from the job environment"
    dev["coverage_gaps"][:2] = [gap, gap]
    dev["files_changed"][0]["summary"] += f"; token_cache_key {TOKEN}"
    (chain / DEV).write_text(json.dumps(dev, indent=2, ensure_ascii=False), encoding="utf-8")
    ba = json.loads((chain / "01-ba-agent.json").read_text(encoding="utf-8"))
    ba["acceptance_criteria"][0] += f" (token_cache_key {TOKEN})"
    (chain / "01-ba-agent.json").write_text(json.dumps(ba, indent=2), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


@pytest.mark.parametrize("selection", WITHOUT_HX001, ids=" ".join)
@pytest.mark.parametrize("output", ["text", "json", "sarif", "github", "markdown"])
def test_nr201_message_and_excerpt_mask_a_token_when_hx001_does_not_run(
    leaky_repo: Path, capsys: pytest.CaptureFixture[str], output: str, selection: list[str]
) -> None:
    assert main(["--format", output, *selection]) == 1
    out = capsys.readouterr().out
    assert "NR201" in out
    assert "HX001" not in out
    assert not leaks(out)
    assert "(40 characters)" in out  # the masked form, however the format escapes its ellipsis


def test_every_report_file_masks_a_token_when_hx001_is_ignored(
    leaky_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = {fmt: leaky_repo / f"report.{fmt}" for fmt in ("text", "json", "sarif", "github", "markdown")}
    arguments = [item for fmt, path in outputs.items() for item in ("--output", f"{fmt}={path}")]
    assert main(["--ignore", "HX001", *arguments]) == 1
    assert not leaks(capsys.readouterr().out)
    for fmt, path in outputs.items():
        text = path.read_text(encoding="utf-8")
        assert "NR201" in text, fmt
        assert not leaks(text), fmt


def test_the_github_step_summary_masks_a_token_when_hx001_is_ignored(
    leaky_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = leaky_repo / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["--ignore", "HX001"]) == 1
    captured = capsys.readouterr()
    assert "NR201" in summary.read_text(encoding="utf-8")
    for where in (captured.out, captured.err, summary.read_text(encoding="utf-8")):
        assert not leaks(where)


def test_pytest_failure_junitxml_and_trace_mask_a_token_when_hx001_is_ignored(
    leaky_repo: Path, pytester: pytest.Pytester
) -> None:
    shutil.copytree(leaky_repo / ".neuralrelay", pytester.path / ".neuralrelay")
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(
        "--handoffs", "-p", "no:cacheprovider", "--handoff-ignore", "HX001", "-rA", f"--junitxml={junit}"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "NR201" in out
    assert "handoff trace" in out
    assert not leaks(out)
    assert not leaks(junit.read_text(encoding="utf-8"))
    assert "NR201" in junit.read_text(encoding="utf-8")


def test_the_same_run_with_hx001_selected_reports_the_token_masked(
    leaky_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "HX001 unredacted-secret" in out
    assert not leaks(out)


def test_a_quote_cut_short_hides_what_it_shows_of_a_token() -> None:
    from pytest_handoff.pipeline.masking import secret_masker

    hide = secret_masker([TOKEN])
    shown = hide(f'gap repeats entry 0: "reads GITHUB_TOKEN={TOKEN[:30]}…"')
    assert not leaks(shown)
    assert shown.startswith('gap repeats entry 0: "reads GITHUB_TOKEN=ghp_…(40 characters)…"')
    assert hide("no secret here, ghp_ alone") == "no secret here, ghp_ alone"


def test_hx001_takes_the_body_of_a_private_key_as_the_secret() -> None:
    from pytest_handoff.rules.secrets import find_secrets

    key = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq83xWmV\nZ0b1c2d3==\n-----END RSA PRIVATE KEY-----"
    )
    assert list(find_secrets(f"deploy key: {key} (rotated)")) == [("private key block", key)]


def test_a_token_quoted_case_folded_by_nr306_is_hidden(
    leaky_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (chain,) = (leaky_repo / ".neuralrelay" / "handoffs").iterdir()
    for name in (DEV, "01-ba-agent.json"):  # the token only in a criterion no one traces
        shutil.copyfile(CLEAN_CHAIN / "handoffs" / chain.name / name, chain / name)
    ba = json.loads((chain / "01-ba-agent.json").read_text(encoding="utf-8"))
    ba["acceptance_criteria"].append(f"Deploy key {TOKEN} rotates weekly via vault kubernetes")
    (chain / "01-ba-agent.json").write_text(json.dumps(ba, indent=2), encoding="utf-8")
    for selection in ([], ["--ignore", "HX001"]):
        main(["--format", "json", *selection])
        out = capsys.readouterr().out
        assert "NR306" in out
        assert not leaks(out)
    assert secret_masker_hides_every_case()


def secret_masker_hides_every_case() -> bool:
    from pytest_handoff.pipeline.masking import secret_masker

    hide = secret_masker([TOKEN])
    return not any(
        leaks(hide(spelling)) for spelling in (TOKEN.lower(), TOKEN.upper(), f"x{TOKEN.lower()[3:20]}…")
    )


def test_a_spelling_that_only_case_insensitive_matching_finds_is_masked_not_a_crash() -> None:
    from pytest_handoff.pipeline.masking import secret_masker

    secret = "Sup3rS3cretValue99xQ7"
    long_s = secret.replace("S", "\u017f")  # IGNORECASE matches it; lower() keeps it
    shown = secret_masker([secret])(f"reads {long_s} from the vault")
    assert shown == "reads Sup3…(21 characters) from the vault"


def test_hx001_a_bare_private_key_header_does_not_take_the_prose_after_it() -> None:
    from pytest_handoff.rules.secrets import find_secrets

    text = "-----BEGIN PRIVATE KEY----- rejects everything else with a ValueError; the private key stays"
    assert list(find_secrets(text)) == [("private key block", "-----BEGIN PRIVATE KEY-----")]


# --- secrets in places no rule quotes: warnings summary, file names, record ids ---------------


def test_pytest_warnings_summary_shows_the_source_line_masked(
    leaky_repo: Path, pytester: pytest.Pytester
) -> None:
    shutil.copytree(leaky_repo / ".neuralrelay", pytester.path / ".neuralrelay")
    (chain,) = (pytester.path / ".neuralrelay" / "handoffs").iterdir()
    test = json.loads((chain / "03-test-agent.json").read_text(encoding="utf-8"))
    # A warning-level finding (NR206, a counterexample too long) on the line that holds the token.
    test["bugs_found"][0]["counterexample"] = f"GITHUB_TOKEN={TOKEN} " + "f(1) " * 150
    (chain / "03-test-agent.json").write_text(json.dumps(test, indent=2), encoding="utf-8")
    for selection in (["--handoff-ignore", "HX001"], []):
        result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider", "-W", "always", "-rA", *selection)
        output = result.stdout.str()
        assert "HandoffContractWarning" in output
        assert not leaks(output)


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github", "markdown"])
def test_a_file_name_that_holds_a_secret_is_masked_in_every_output(
    git_project: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    folder = git_project / ".neuralrelay" / "handoffs" / "20261103-091500"
    shutil.copytree(CLEAN_CHAIN / "handoffs" / "20261103-091500", folder)
    (folder / f"notes-{TOKEN}.json").write_text("{}\n", encoding="utf-8")  # NR108, a stray file
    assert main(["--format", output]) == 0
    out = capsys.readouterr().out
    assert "NR108" in out
    assert not leaks(out)


def test_naming_a_file_whose_name_holds_a_secret_still_reports_its_findings(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = git_project / ".neuralrelay" / "handoffs" / "20261103-091500"
    shutil.copytree(CLEAN_CHAIN / "handoffs" / "20261103-091500", folder)
    named = folder / f"notes-{TOKEN}.json"
    named.write_text("{}\n", encoding="utf-8")
    main(["--format", "json", str(named.relative_to(git_project))])
    report = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in report["findings"]] == ["NR108"]
    assert not leaks(json.dumps(report))


def test_a_store_row_whose_id_holds_a_secret_is_masked_even_in_its_hx001_finding(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.craik_helpers import clean_handoff
    from tests.test_craik_store import as_row, build_store

    handoff = clean_handoff()
    handoff["id"] = TOKEN
    build_store(git_project / "store.sqlite3", [as_row("handoffs", handoff)])
    for output in ("text", "json", "sarif", "github"):
        main(["--format", output, "store.sqlite3"])
        out = capsys.readouterr().out
        assert "HX001" in out, output
        assert not leaks(out), output
