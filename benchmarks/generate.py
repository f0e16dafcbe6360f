#!/usr/bin/env python3
"""Generate realistic NeuralRelay handoff chains for benchmarks (standard library only).

    python benchmarks/generate.py OUT_DIR --chains N [--broken-fraction F] [--seed S] [--verify]

writes ``OUT_DIR/.neuralrelay/handoffs/<chain-id>/0N-*.json`` (four files per chain) and
``OUT_DIR/generated-chains.tsv`` (one line per chain: id, clean|broken, the breaks put in).

Every chain starts from the clean example chain (``examples/neuralrelay/clean/...``) and is varied
deterministically from ``--seed`` and its index: the domain (service, record noun, tenants,
customer names, record numbers), sizes and limits quoted in the text, line numbers, list lengths
and order, token counts, test counts, scores, timestamps and the chain id. Files stay 2-8 kB like
the examples. A clean chain meets every contract rule (no finding at all, not even a warning).

A broken chain is a clean chain with 2-4 contract breaks of the kind ``examples/neuralrelay/broken/`` shows
(see ``BREAKS``); each break is one the linter must report as an error, so every broken chain
fails ``handoff-lint`` (exit 1) and every clean one passes (exit 0). ``--verify`` checks exactly
that with ``handoff-lint`` (found next to the running Python, on PATH, or via ``--handoff-lint``).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TEMPLATE_DIR = REPO / "examples" / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / "20261103-091500"
FILE_NAMES = ("01-ba-agent.json", "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json")
HANDOFF_TYPES = ("requirements", "dev_to_test", "test_to_review", "review_final")
MANIFEST = "generated-chains.tsv"
#: Bump when the output for a given seed changes, so cached trees are regenerated.
GENERATOR_VERSION = 1

Chain = list[dict[str, Any]]  # the four documents, in file order

# --- vocabulary -----------------------------------------------------------------------

SERVICES = ("billing", "ledger", "payments", "accounts", "invoicing", "finance", "revenue", "settlement")
NOUNS = ("invoice", "receipt", "statement", "bill", "voucher", "order", "payout", "remittance")
TENANTS = (
    "acme",
    "globex",
    "initech",
    "umbrella",
    "hooli",
    "vandelay",
    "stark",
    "wayne",
    "tyrell",
    "cyberdyne",
    "soylent",
    "wonka",
    "gringotts",
    "oscorp",
    "aperture",
    "massive",
)
CUSTOMERS = (
    "Ærø Fisk ApS",
    "Škoda Dílna s.r.o.",
    "Łódź Piekarnia Sp. z o.o.",
    "Café Émile SARL",
    "Müller & Söhne GmbH",
    "Øresund Shipping A/S",
    "Brødrene Ås AS",
    "Ñandú Textiles S.L.",
    "Žužemberk Les d.o.o.",
    "Ísafjörður Fiskur ehf.",
    "Çiftçi Gıda A.Ş.",  # noqa: RUF001 (Turkish dotless i, on purpose)
    "Škofja Loka Mlin d.o.o.",
)
PREFIXES = ("INV", "DOC", "FIN", "REC", "BIL", "ACC", "TX", "NR")
TICKETS = ("FIN", "BILL", "PAY", "ACC", "OPS", "REV", "LED")

# Vague text a break puts in, as examples/neuralrelay/broken does.
PLACEHOLDER_COUNTEREXAMPLES = ("see above", "TBD", "N/A", "todo", "same as above", "see description")
VAGUE_GAPS = ("Needs more testing.", "More tests needed", "Edge cases.", "Not fully tested.")
VAGUE_FOCUS = (
    "Look closely at what the export does when the database is slow; that is where the worst bug is.",
    "Check the pagination logic carefully, it is the riskiest part of the change.",
    "Review the streaming code and the tenant handling with extra care.",
)


def load_templates() -> Chain:
    return [json.loads((TEMPLATE_DIR / name).read_text(encoding="utf-8")) for name in FILE_NAMES]


def _map_strings(node: Any, change: Callable[[str], str]) -> Any:
    """``node`` with ``change`` applied to every string value (never to keys)."""
    if isinstance(node, str):
        return change(node)
    if isinstance(node, list):
        return [_map_strings(item, change) for item in node]
    if isinstance(node, dict):
        return {key: _map_strings(value, change) for key, value in node.items()}
    return node


def _substitutions(rng: random.Random) -> Callable[[str], str]:
    """One chain's consistent text changes, applied alike to all four handoffs.

    The same replacement everywhere keeps the cross-handoff rules satisfied: a property restated in
    the test handoff still starts with the dev handoff's text, criteria stay traceable, and so on.
    """
    service = rng.choice(SERVICES)
    noun = rng.choice(NOUNS)
    tenant_a, tenant_b = rng.sample(TENANTS, 2)
    customer = rng.choice(CUSTOMERS)
    year = rng.randint(2024, 2029)
    record = f"{rng.choice(PREFIXES)}-{year}-{rng.randint(1, 9999):04d}"
    big = rng.randrange(20_000, 250_001, 5_000)
    seeded = rng.randrange(400, 5_001, 100)
    batch = rng.choice((100, 200, 250, 500, 1000, 2000))
    limit = rng.choice((32, 48, 64, 96, 128, 256))
    measured = rng.randint(max(4, limit // 8), limit * 2 // 3)
    decimals = rng.randrange(500, 20_001, 500)
    cursor_start = rng.randint(20, 400)
    cursor = f"{cursor_start}-{cursor_start + rng.randint(25, 80)}"
    check_start = rng.randint(10, 120)
    check = f"{check_start}-{check_start + rng.randint(8, 30)}"
    route_line = rng.randint(40, 400)
    delta = f"+{rng.randint(1, 12)}.{rng.randint(0, 9)}%"
    module_cov = f"{rng.randint(85, 99)}%"
    fastapi = f"0.{rng.randint(100, 120)}"
    postgres = str(rng.randint(13, 17))
    pool = str(rng.choice((5, 8, 10, 12, 16, 20)))
    article = "an" if noun[0] in "aeiou" else "a"

    # Order matters: longer or more specific patterns first.
    table: list[tuple[str, str]] = [
        (r"\b(?:an|a) invoice", f"{article} {noun}"),
        (r"\b(?:An|A) invoice", f"{article.capitalize()} {noun}"),
        (r"INV-2026-0412", record),
        (r"invoice", noun),
        (r"Invoice", noun.capitalize()),
        (r"billing", service),
        (r"\bacme\b", tenant_a),
        (r"\bglobex\b", tenant_b),
        (r"Ærø Fisk ApS", customer),
        (r"50,000", f"{big:,}"),
        (r"1,200", f"{seeded:,}"),
        (r"2,000 Decimals", f"{decimals:,} Decimals"),
        (r"\b500\b", str(batch)),
        (r"\b501\b", str(batch + 1)),
        (r"\b64 MB\b", f"{limit} MB"),
        (r"\b19 MB\b", f"{measured} MB"),
        (r"88-131", cursor),
        (r"31-44", check),
        (r"line 118\b", f"line {route_line}"),
        (r"\+5\.8%", delta),
        (r"\b97%", module_cov),
        (r"FastAPI 0\.115", f"FastAPI {fastapi}"),
        (r"PostgreSQL 16", f"PostgreSQL {postgres}"),
        (r"pool size is 10\b", f"pool size is {pool}"),
        (r"pool of 10\b", f"pool of {pool}"),
        (r"\bten (slow|parallel)\b", f"{pool} \\1"),
    ]
    compiled = [(re.compile(pattern), replacement) for pattern, replacement in table]

    def change(text: str) -> str:
        for pattern, replacement in compiled:
            text = pattern.sub(replacement, text)  # replacement: a template, as Match.expand takes
        return text

    return change


def _subset(rng: random.Random, items: list[Any], keep_min: int, keep: tuple[int, ...] = ()) -> list[Any]:
    """Between ``keep_min`` and all of ``items`` (those at ``keep`` always), in their order."""
    if len(items) <= keep_min:
        return list(items)
    count = rng.randint(keep_min, len(items))
    optional = [i for i in range(len(items)) if i not in keep]
    chosen = set(keep) | set(rng.sample(optional, max(0, count - len(keep))))
    return [item for i, item in enumerate(items) if i in chosen]


def _shuffled(rng: random.Random, items: list[Any]) -> list[Any]:
    items = list(items)
    rng.shuffle(items)
    return items


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def make_clean_chain(rng: random.Random, templates: Chain, start: datetime) -> Chain:
    """A chain that meets every contract rule, varied from ``templates`` by ``rng``."""
    change = _substitutions(rng)
    ba, dev, test, review = (_map_strings(copy.deepcopy(doc), change) for doc in templates)

    # Requirements: which criteria and side lists a run happens to have.
    ticket = f"{rng.choice(TICKETS)}-{rng.randint(100, 9999)}"
    ba["task_summary"] = f"{ba['task_summary'][:-1]} (ticket {ticket})."
    ba["acceptance_criteria"] = _subset(rng, ba["acceptance_criteria"], 5, keep=(0, 1))
    ba["technical_constraints"] = _shuffled(rng, _subset(rng, ba["technical_constraints"], 3))
    ba["out_of_scope"] = _shuffled(rng, _subset(rng, ba["out_of_scope"], 2))
    ba["affected_modules"] = _subset(rng, ba["affected_modules"], 3)
    ba["estimated_complexity"] = rng.choice(("simple", "medium", "medium", "complex"))

    # Dev: the same work described with more or fewer side notes.
    # Entries that trace a criterion (NR306) stay: the range check and its error code.
    dev["files_changed"] = _subset(rng, dev["files_changed"], 4, keep=(0, 1, 5))
    dev["coverage_gaps"] = _shuffled(rng, _subset(rng, dev["coverage_gaps"], 3))
    dev["known_risks"] = _shuffled(rng, dev["known_risks"])
    dev["integration_points"] = _shuffled(rng, dev["integration_points"])
    unit_count = rng.randint(12, 80)
    dev["unit_tests_written"]["count"] = unit_count
    dev["unit_tests_written"]["passing"] = unit_count - rng.choice((0, 0, 0, 1, 2))

    # Properties: drop some confirmed ones (with their classification), keep the rest aligned.
    props = dev["properties_believed"]
    confirmed = test["property_verification"]["confirmed"]
    # The first one (money formatting) is what traces the credit-note criterion, so it stays.
    dropped = set(rng.sample(range(1, len(confirmed)), rng.randint(0, len(confirmed) - 1)))
    dropped_texts = [props[i]["property"] for i in dropped]
    dev["properties_believed"] = [p for p in props if p["property"] not in dropped_texts]
    test["property_verification"]["confirmed"] = [
        entry for entry in confirmed if not any(entry.startswith(text) for text in dropped_texts)
    ]
    for prop in dev["properties_believed"]:
        if rng.random() < 0.3:
            prop["confidence"] = rng.choice(("high", "medium"))

    # Test: counts that add up, with the one known failing test.
    failing = len(test["bugs_found"])
    skipped = rng.randint(0, 3)
    passing = rng.randint(15, 120)
    test["test_summary"].update(
        total=passing + failing + skipped, passing=passing, failing=failing, skipped=skipped
    )
    test["test_files_created"] = _shuffled(rng, _subset(rng, test["test_files_created"], 3))

    # Review: a subset of the low issues, a score in the approved band.
    review["issues"] = _subset(rng, review["issues"], 2, keep=(0,))
    review["recommendations"] = _shuffled(rng, review["recommendations"])
    review["quality_score"] = rng.randint(7, 10)
    for key in review["chain_quality"]:
        review["chain_quality"][key] = rng.randint(6, 10)

    # Tokens: the review total covers every agent, its own included.
    dev["tokens_used"] = rng.randrange(18_000, 64_001, 50)
    test["tokens_used"] = rng.randrange(12_000, 48_001, 50)
    review["total_tokens"] = dev["tokens_used"] + test["tokens_used"] + rng.randrange(4_000, 16_001, 100)

    # Timestamps: the chain id is the start; each stage follows the previous one.
    moment = start
    for doc, (low, high) in zip(
        (ba, dev, test, review), ((0, 0), (900, 4200), (900, 4200), (300, 1800)), strict=True
    ):
        moment += timedelta(seconds=rng.randint(low, high))
        doc["timestamp"] = _stamp(moment)
    return [ba, dev, test, review]


# --- breaks ----------------------------------------------------------------------------
# Each break changes a clean chain so that one error-severity rule must fire. The BA file is
# only touched by the timestamp break, so a schema failure there hides no other break.


def _break_test_total(rng: random.Random, chain: Chain) -> None:
    chain[2]["test_summary"]["total"] += rng.randint(1, 6)


def _break_token_total(rng: random.Random, chain: Chain) -> None:
    spent = chain[1]["tokens_used"] + chain[2]["tokens_used"]
    chain[3]["total_tokens"] = spent - rng.randrange(1_000, 12_001, 100)


def _break_unclassified_property(rng: random.Random, chain: Chain) -> None:
    confirmed = chain[2]["property_verification"]["confirmed"]
    del confirmed[rng.randrange(len(confirmed))]


def _break_placeholder_counterexample(rng: random.Random, chain: Chain) -> None:
    chain[2]["bugs_found"][0]["counterexample"] = rng.choice(PLACEHOLDER_COUNTEREXAMPLES)


def _break_approved_high_issue(rng: random.Random, chain: Chain) -> None:
    issue = chain[3]["issues"][0]
    issue["severity"] = rng.choice(("high", "critical"))


def _break_vague_gap(rng: random.Random, chain: Chain) -> None:
    chain[1]["coverage_gaps"].append(rng.choice(VAGUE_GAPS))


def _break_duplicate_gap(rng: random.Random, chain: Chain) -> None:
    gaps = chain[1]["coverage_gaps"]
    gaps.append(gaps[rng.randrange(len(gaps))].lower().rstrip(".") + ".")


def _break_reviewer_focus(rng: random.Random, chain: Chain) -> None:
    chain[2]["recommended_focus_for_reviewer"] = rng.choice(VAGUE_FOCUS)


def _break_falsified_without_bug(rng: random.Random, chain: Chain) -> None:
    chain[2]["bugs_found"] = []


def _break_unit_tests(rng: random.Random, chain: Chain) -> None:
    tests = chain[1]["unit_tests_written"]
    tests["passing"] = tests["count"] + rng.randint(1, 5)


def _break_timestamp(rng: random.Random, chain: Chain) -> None:
    chain[0]["timestamp"] = chain[0]["timestamp"].replace("T", " ").rstrip("Z")


#: name -> (function, the rule code it must trigger)
BREAKS: dict[str, tuple[Callable[[random.Random, Chain], None], str]] = {
    "test-summary-total": (_break_test_total, "NR208"),
    "token-total-too-low": (_break_token_total, "NR307"),
    "unclassified-property": (_break_unclassified_property, "NR301"),
    "placeholder-counterexample": (_break_placeholder_counterexample, "NR204"),
    "approved-with-high-issue": (_break_approved_high_issue, "NR210"),
    "vague-coverage-gap": (_break_vague_gap, "NR202"),
    "duplicate-coverage-gap": (_break_duplicate_gap, "NR201"),
    "unspecific-reviewer-focus": (_break_reviewer_focus, "NR207"),
    "falsified-without-bug": (_break_falsified_without_bug, "NR304"),
    "unit-tests-exceed-count": (_break_unit_tests, "NR209"),
    "timestamp-not-rfc3339": (_break_timestamp, "HS001"),
}
#: Breaks that would hide each other (both rewrite bugs_found).
EXCLUSIVE = ({"placeholder-counterexample", "falsified-without-bug"},)


def choose_breaks(rng: random.Random) -> list[str]:
    names = rng.sample(sorted(BREAKS), rng.randint(2, 4))
    for group in EXCLUSIVE:
        clash = [name for name in names if name in group]
        for name in clash[1:]:
            names.remove(name)
    return names


def break_chain(rng: random.Random, chain: Chain, names: list[str]) -> Chain:
    broken = copy.deepcopy(chain)
    for name in names:
        BREAKS[name][0](rng, broken)
    return broken


# --- writing -----------------------------------------------------------------------------


def chain_start(rng: random.Random, used: set[str]) -> tuple[datetime, str]:
    """A start time in 2026 whose ``YYYYMMDD-HHmmss`` id is not taken yet."""
    moment = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=rng.randrange(365 * 86400))
    while moment.strftime("%Y%m%d-%H%M%S") in used:
        moment += timedelta(seconds=1)
    chain_id = moment.strftime("%Y%m%d-%H%M%S")
    used.add(chain_id)
    return moment, chain_id


def generate(
    out_dir: Path, chains: int, broken_fraction: float = 0.0, seed: int = 0
) -> list[tuple[str, str, list[str]]]:
    """Write ``chains`` chains under ``out_dir``; return (chain id, clean|broken, breaks) per chain.

    Which chains are broken is decided by position (evenly spread: chain i is broken when
    ``floor((i + 1) * F) > floor(i * F)``), so the share is exact and stable across seeds.
    """
    templates = load_templates()
    handoffs = out_dir / ".neuralrelay" / "handoffs"
    if handoffs.exists():
        shutil.rmtree(handoffs)
    handoffs.mkdir(parents=True)
    used: set[str] = set()
    manifest: list[tuple[str, str, list[str]]] = []
    for index in range(chains):
        rng = random.Random(f"{seed}:{index}")
        start, chain_id = chain_start(rng, used)
        docs = make_clean_chain(rng, templates, start)
        broken = int((index + 1) * broken_fraction) > int(index * broken_fraction)
        names: list[str] = []
        if broken:
            names = choose_breaks(rng)
            docs = break_chain(rng, docs, names)
        folder = handoffs / chain_id
        folder.mkdir()
        for name, doc in zip(FILE_NAMES, docs, strict=True):
            (folder / name).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        manifest.append((chain_id, "broken" if broken else "clean", names))
    lines = [f"{cid}\t{kind}\t{','.join(names)}" for cid, kind, names in manifest]
    (out_dir / MANIFEST).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


def read_manifest(out_dir: Path) -> list[tuple[str, str, list[str]]]:
    rows = []
    for line in (out_dir / MANIFEST).read_text(encoding="utf-8").splitlines():
        chain_id, kind, names = line.split("\t")
        rows.append((chain_id, kind, [n for n in names.split(",") if n]))
    return rows


# --- verification ---------------------------------------------------------------------------


def find_handoff_lint() -> str | None:
    beside = Path(sys.executable).parent / "handoff-lint"
    if beside.exists():
        return str(beside)
    return shutil.which("handoff-lint")


def verify(out_dir: Path, handoff_lint: str, per_chain_limit: int = 200) -> list[str]:
    """Problems found: a clean chain with any finding, a broken chain missing an expected error,
    or a chain folder whose own ``handoff-lint`` exit code is not 0 (clean) / 1 (broken)."""
    manifest = read_manifest(out_dir)
    problems: list[str] = []
    run = subprocess.run(
        [handoff_lint, "--format", "json", str(out_dir)],
        cwd=out_dir,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode not in (0, 1):
        return [f"handoff-lint exited {run.returncode}: {run.stderr.strip()}"]
    report = json.loads(run.stdout)
    by_chain: dict[str, set[str]] = {}
    for finding in report["findings"]:
        chain_id = Path(finding["path"]).parent.name
        by_chain.setdefault(chain_id, set()).add(f"{finding['code']}:{finding['severity']}")
    expect_rc = 1 if any(kind == "broken" for _, kind, _ in manifest) else 0
    if run.returncode != expect_rc:
        problems.append(f"whole tree: exit {run.returncode}, expected {expect_rc}")
    for chain_id, kind, names in manifest:
        found = by_chain.get(chain_id, set())
        if kind == "clean" and found:
            problems.append(f"{chain_id} (clean): unexpected findings {sorted(found)}")
        for name in names:
            if f"{BREAKS[name][1]}:error" not in found:
                problems.append(
                    f"{chain_id} (broken: {name}): no {BREAKS[name][1]} error; found {sorted(found)}"
                )
    for chain_id, kind, _ in manifest[:per_chain_limit]:
        folder = out_dir / ".neuralrelay" / "handoffs" / chain_id
        code = subprocess.run(
            [handoff_lint, str(folder)], cwd=out_dir, capture_output=True, check=False
        ).returncode
        expected = 1 if kind == "broken" else 0
        if code != expected:
            problems.append(f"{chain_id} ({kind}): handoff-lint exit {code}, expected {expected}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, help="folder to write .neuralrelay/handoffs/ into")
    parser.add_argument("--chains", type=int, required=True, help="number of chains (4 files each)")
    parser.add_argument("--broken-fraction", type=float, default=0.0, help="share of broken chains, 0-1")
    parser.add_argument("--seed", type=int, default=0, help="seed of all variation (default 0)")
    parser.add_argument("--verify", action="store_true", help="check the tree with handoff-lint afterwards")
    parser.add_argument("--handoff-lint", default=None, help="handoff-lint executable for --verify")
    args = parser.parse_args(argv)
    if args.chains < 1 or not 0.0 <= args.broken_fraction <= 1.0:
        parser.error("--chains must be >= 1 and --broken-fraction between 0 and 1")
    manifest = generate(args.out_dir, args.chains, args.broken_fraction, args.seed)
    broken = sum(kind == "broken" for _, kind, _ in manifest)
    print(f"wrote {len(manifest)} chains ({broken} broken, {4 * len(manifest)} files) to {args.out_dir}")
    if args.verify:
        tool = args.handoff_lint or find_handoff_lint()
        if tool is None:
            print("handoff-lint not found; pass --handoff-lint", file=sys.stderr)
            return 2
        problems = verify(args.out_dir, tool)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        print("verify: " + ("OK" if not problems else f"{len(problems)} problem(s)"))
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
