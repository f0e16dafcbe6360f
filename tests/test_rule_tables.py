"""Built-in rules are tables, read by a registry that is built once and passed in: nothing
registers anything on import, every code is known in any process, with its four-part docs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.neuralrelay.rules import RULES as NEURALRELAY_RULES
from pytest_handoff.rules.core import CORE_RULES
from pytest_handoff.values.rules import Rule

FOUR_PARTS = ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**")
NEURALRELAY_MODULES = (
    "profile", "rules", "layout", "handoff", "matching", "classification", "tracing", "cycles", "views",
)  # fmt: skip


def run_python(probe: str) -> list[str]:
    """Run ``probe`` in a fresh interpreter (nothing imported yet) and return its printed lines."""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_nothing_registers_a_rule_on_import_there_is_no_table_to_register_in() -> None:
    import pytest_handoff.rules.rows as rows

    assert not any(hasattr(rows, name) for name in ("RULES", "register", "register_table", "unregister"))


def test_two_registries_are_independent_values_built_from_the_same_tables() -> None:
    from pytest_handoff.pipeline.registry import Registry

    first, second = Registry(entry_points=False), Registry(entry_points=False)
    assert first.all_rules() == second.all_rules() == default_registry().all_rules()
    assert first.profile("neuralrelay") is second.profile("neuralrelay")  # the profiles are stateless values


def test_handoff_lint_explain_knows_every_code_in_a_fresh_process() -> None:
    codes = list(default_registry().all_rules())
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "explain", *codes],
        capture_output=True,
        text=True,
        check=True,
    )
    headings = [line.split()[0] for line in done.stdout.splitlines() if "(default severity:" in line]
    assert headings == codes


def test_the_neuralrelay_package_imports_none_of_its_modules() -> None:
    probe = (
        "import sys, pytest_handoff.profiles.neuralrelay\n"
        "print(sorted(m for m in sys.modules if m.startswith('pytest_handoff.profiles.neuralrelay.')))\n"
    )
    assert run_python(probe) == ["[]"]


@pytest.mark.parametrize(
    ("table", "prefixes", "profile"),
    [(CORE_RULES, ("HF", "HS", "HX", "EV"), None), (NEURALRELAY_RULES, ("NR",), "neuralrelay")],
    ids=["core", "neuralrelay"],
)
def test_a_rule_table_has_unique_codes_of_its_prefixes_and_four_part_docs(
    table: tuple[Rule, ...], prefixes: tuple[str, ...], profile: str | None
) -> None:
    codes = [rule.code for rule in table]
    assert len(codes) == len(set(codes))
    assert len({rule.name for rule in table}) == len(table)
    for rule in table:
        assert rule.code.startswith(prefixes), rule.code
        assert rule.profile == profile, rule.code
        assert rule.summary, rule.code
        assert not rule.summary.startswith("**"), rule.code
        places = [rule.doc.find(part) for part in FOUR_PARTS]
        assert -1 not in places, rule.code
        assert places == sorted(places), rule.code  # the four parts, in order
        assert (rule.check is None) == (rule.scope == "load"), rule.code


def test_the_rules_of_neuralrelay_groups_are_the_core_table_and_exactly_its_own() -> None:
    assert [rule.code for rule in NEURALRELAY_RULES] == sorted(rule.code for rule in NEURALRELAY_RULES)
    rules = default_registry().rules_of("neuralrelay").by_code
    assert dict(rules) == {rule.code: rule for rule in (*CORE_RULES, *NEURALRELAY_RULES)}


def test_hx001_is_a_core_chain_rule_whose_check_lives_in_secrets() -> None:
    from pytest_handoff.rules.secrets import check_no_secrets

    (hx001,) = [rule for rule in CORE_RULES if rule.code == "HX001"]
    assert (hx001.name, hx001.scope, hx001.check) == ("unredacted-secret", "chain", check_no_secrets)
    assert hx001.doc.startswith("A handoff contains no unredacted secret.")


def test_nr108_is_a_reported_warning_of_the_neuralrelay_table() -> None:
    (nr108,) = [rule for rule in NEURALRELAY_RULES if rule.code == "NR108"]
    assert (nr108.name, nr108.severity.label, nr108.scope) == ("stray-file", "warning", "load")
    assert nr108.check is None  # the profile reports it while reading


def test_handoff_lint_rules_in_a_fresh_process_lists_every_core_and_neuralrelay_rule() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "rules"], capture_output=True, text=True, check=True
    )
    listed = [line.split()[0] for line in done.stdout.splitlines()]
    # Other built-in profiles (Craik's CK...) list their rules too.
    assert listed == sorted(listed)
    assert {rule.code for rule in (*CORE_RULES, *NEURALRELAY_RULES)} <= set(listed)


@pytest.mark.parametrize("code", ["HF001", "HX001", "NR108"])
def test_handoff_lint_explain_in_a_fresh_process_knows_core_and_reported_rules(code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "explain", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith(f"{code} ")
    assert "**Use instead**" in done.stdout
