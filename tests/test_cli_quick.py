"""The linter's common command lines, read without argparse, give what the full parser gives."""

from __future__ import annotations

import pytest

from pytest_handoff.cli.options import build_parser
from pytest_handoff.cli.quick import DEFAULTS, quick_options


def test_the_quick_reader_knows_every_option_and_its_default() -> None:
    assert vars(build_parser().parse_args([])) == DEFAULTS


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["a.json"],
        ["--no-evidence", "a.json", "b/c.json"],
        ["--format", "json", "a.json"],
        ["--format=sarif", "--skip-unclaimed", "--staged-deletions", "x.md"],
        ["--evidence", "--whole-chain", "--no-ci-output", "--", "-odd-name.json"],
    ],
)
def test_a_common_command_line_is_read_as_the_full_parser_reads_it(argv: list[str]) -> None:
    quick = quick_options(argv)
    assert quick is not None
    assert vars(quick) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--format", "yaml"],
        ["--select", "NR"],
        ["-"],
        ["--format"],
        ["--no-evidenc"],
        ["--jobs", "2"],
    ],
)
def test_anything_else_goes_to_the_full_parser(argv: list[str]) -> None:
    assert quick_options(argv) is None


def test_a_path_after_a_switch_after_paths_goes_to_the_full_parser_which_refuses_it() -> None:
    assert quick_options(["a.json", "--no-evidence", "b.json"]) is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["a.json", "--no-evidence", "--jobs", "1", "b.json"])
