"""Built-in rules are tables: importing a rule's module registers nothing; the engine and a
profile's loading register them, each code once, with its four-part docs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_handoff.core_rules import CORE_RULES
from pytest_handoff.profiles import load
from pytest_handoff.profiles.neuralrelay.rules import RULES as NEURALRELAY_RULES
from pytest_handoff.rules import RULES, Rule

FOUR_PARTS = ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**")
NEURALRELAY_MODULES = (
    "profile", "rules", "layout", "handoff", "matching", "classification", "tracing", "cycles", "views",
)  # fmt: skip


def run_python(probe: str) -> list[str]:
    """Run ``probe`` in a fresh interpreter (nothing imported yet) and return its printed lines."""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_importing_the_neuralrelay_profile_registers_no_nr_rule_until_the_profile_is_loaded() -> None:
    probe = (
        "import pytest_handoff.profiles.neuralrelay.profile as module\n"
        "from pytest_handoff.rules import RULES\n"
        "print(module.PROFILE.name, sorted(c for c in RULES if c.startswith('NR')))\n"
        "from pytest_handoff.profiles import load\n"
        "assert load('neuralrelay') is module.PROFILE\n"
        "print(sorted(c for c in RULES if c.startswith('NR')) == sorted(r.code for r in module.PROFILE.rule_table()))\n"
    )
    assert run_python(probe) == ["neuralrelay []", "True"]


def test_importing_builtin_rule_modules_registers_nothing_and_the_engine_registers_the_core_table() -> None:
    modules = [
        "pytest_handoff.core_rules",
        "pytest_handoff.secrets",
        *(f"pytest_handoff.profiles.neuralrelay.{name}" for name in NEURALRELAY_MODULES),
    ]
    probe = (
        f"import importlib\nfor name in {modules!r}: importlib.import_module(name)\n"
        "from pytest_handoff.rules import RULES\n"
        "print(sorted(RULES))\n"
        "import pytest_handoff.engine\n"
        "print(' '.join(RULES))\n"
    )
    nothing, after_engine = run_python(probe)
    assert nothing == "[]"
    assert after_engine.split() == [rule.code for rule in CORE_RULES]


def test_the_neuralrelay_package_imports_none_of_its_modules() -> None:
    probe = (
        "import sys, pytest_handoff.profiles.neuralrelay\n"
        "print(sorted(m for m in sys.modules if m.startswith('pytest_handoff.profiles.neuralrelay.')))\n"
    )
    assert run_python(probe) == ["[]"]


@pytest.mark.parametrize(
    ("table", "prefixes", "profile"),
    [(CORE_RULES, ("HF", "HS", "HX"), None), (NEURALRELAY_RULES, ("NR",), "neuralrelay")],
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


def test_loading_the_neuralrelay_profile_registers_exactly_its_table() -> None:
    load("neuralrelay")
    assert [rule.code for rule in NEURALRELAY_RULES] == sorted(rule.code for rule in NEURALRELAY_RULES)
    assert {code: rule for code, rule in RULES.items() if code.startswith("NR")} == {
        rule.code: rule for rule in NEURALRELAY_RULES
    }
    assert all(RULES[rule.code] == rule for rule in CORE_RULES)


def test_hx001_is_a_core_chain_rule_whose_check_lives_in_secrets() -> None:
    from pytest_handoff.secrets import check_no_secrets

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
