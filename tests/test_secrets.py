"""HX001: secrets in handoffs are reported masked, and never printed."""

from __future__ import annotations

import json
import random
import string
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_handoff.cli import main
from pytest_handoff.rules.secrets import find_secrets, mask, may_hold_secrets
from tests.conftest import ChainFolder

TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
DEV = "02-dev-agent.json"


@pytest.fixture
def leaky_chain(in_repo: ChainFolder) -> ChainFolder:
    in_repo.edit(DEV, lambda d: d["known_risks"].append(f"CI pushes with GITHUB_TOKEN={TOKEN} for now"))
    return in_repo


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"uses {TOKEN}", "GitHub token"),
        ("AKIAZ7Q2LMN4R8T6W3XY", "AWS access key ID"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key block"),
        ("postgres://app:s3cr3tP4ss@db:5432/orders", "password in a URL"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "JSON Web Token",
        ),
        ("API_KEY=Zk3Lq9Xv2Rt8Wm4Np7Bs", "value of 'API_KEY'"),
    ],
)
def test_common_secret_formats_are_recognised(text: str, kind: str) -> None:
    assert next(iter(find_secrets(text)))[0] == kind


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("AKIAIOSFODNN7EXAMPLE", ""),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""),
        ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key"),
    ],
)
def test_hx001_leaves_the_credentials_vendors_publish_as_examples_alone(text: str, key: str) -> None:
    assert list(find_secrets(text, key)) == []


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("phases/01-auth/design-tokens.jsonl", "design_tokens"),
        (".yolo-planning/phases/02-Billing/02-01.summary.jsonl", "token_file"),
        ("config/secrets.v2.yaml", "secret_path"),
    ],
)
def test_hx001_never_calls_a_path_a_secret_for_its_key_name_alone(value: str, key: str) -> None:
    assert list(find_secrets(value, key)) == []


def test_hx001_still_finds_a_random_value_with_slashes_under_a_secret_key() -> None:
    found = list(find_secrets("q8Zr/Kx2Lw9N/pT4vYb7Hc1Jm", "client_secret"))
    assert [kind for kind, _ in found] == ["value of 'client_secret'"]


# Pieces of secrets, key names, separators and the Unicode that case-folding and \s treat specially.
SECRET_PIECES = [
    '"api_key"', " : ", "=", ":", '"', "'", "token", "Token", "PWD", "passwd", "my_secret_key", "SECRET",
    "KEY", "x", " ", "\n", "AKIA", "ASIA", "AIza", "ghp_", "gho_", "github_pat_", "sk-", "sk_live_",
    "://u:pw@", "-----BEGIN", "eyJ", ".eyJ", "xoxb-", "glpat-", "ABCDEFGHIJKLMNOP1234", "Zz9" * 8,
    "abcdefghijklmnopq", "é", "ß", "\u00a0", "\u3000", "\x1c", "\x85", "\u2028", "\u212aey",
    "\u017fecret", "CREDENT\u0130AL", "credent\u0131al", "SECRET_KEY", "signing_key", "!", "@", "&",
    "&a=", "$", "*", "hooks.slack.com/services/", "T0AB12CD3/", "B0AB12CD3/", "discord.com/api/webhooks/",
    "123456789012345678/",
]  # fmt: skip


@pytest.mark.slow  # a property test of thousands of examples: seconds
@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(SECRET_PIECES), max_size=10).map("".join))
def test_the_fast_pre_check_never_hides_a_secret(text: str) -> None:
    if any(find_secrets(text)):
        assert may_hold_secrets(text)


JSON_KEYS = [
    "password",
    "api_key",
    "Client_Secret",
    "token",
    "PWD_2",
    "my-credentials",
    "tokens_used",
    "notes",
]
JSON_VALUES = st.lists(
    st.sampled_from([*SECRET_PIECES, "Xk9!mQ2$vL7#pR4&", "!@#$%^&*()", "p4ss", "\\", '"']), max_size=6
).map("".join)


@pytest.mark.slow  # a property test of thousands of examples: seconds
@settings(max_examples=2000, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(JSON_KEYS),
        st.one_of(JSON_VALUES, st.lists(JSON_VALUES, max_size=3), st.integers()),
        max_size=3,
    ),
    st.booleans(),
)
# Found by this test: an escaped quote before the separator and an escaped dotted capital I.
@example(data={"notes": '"api_key" : =tokenCREDENT\u0130AL'}, indent=False)
# And a no-break space before the colon, which json.dumps writes as \u00a0.
@example(data={"notes": '"api_key"\xa0 : ABCDEFGHIJKLMNOP1234'}, indent=False)
def test_the_fast_pre_check_never_hides_a_secret_in_a_json_document(
    data: dict[str, Any], indent: bool
) -> None:
    from pytest_handoff.rules.secrets import _texts

    text = json.dumps(data, indent=2 if indent else None, ensure_ascii=not indent)
    if any(any(find_secrets(value, key)) for _, key, value, _ in _texts(data)):
        assert may_hold_secrets(text)


def test_the_fast_pre_check_passes_ordinary_handoff_text() -> None:
    text = '{"tokens_used": 45200, "summary": "Export streams receipts — see tests/export/test_export.py"}'
    assert not may_hold_secrets(text)


@pytest.mark.parametrize(
    "text",
    [
        "GOOGLE_CLIENT_SECRET must be set in .env.local",
        "the token refresh race in src/lib/tokens.ts:67-89",
        "password=changeme",
        "api_key=<your-api-key>",
        "Sum of tokens used across all agents in a pipeline run",
    ],
)
def test_names_of_secrets_and_placeholders_are_not_secrets(text: str) -> None:
    assert list(find_secrets(text, "total tokens")) == []


def test_a_leaked_token_is_reported_at_its_string_and_never_printed(
    leaky_chain: ChainFolder, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 1
    out = capsys.readouterr().out
    line = leaky_chain.line_of(DEV, "GITHUB_TOKEN=")
    assert f"02-dev-agent.json:{line}:5: HX001 unredacted-secret" in out
    assert mask(TOKEN) in out
    assert TOKEN not in out
    for fmt in ("json", "sarif", "github", "markdown"):
        main(["--format", fmt])
        assert TOKEN not in capsys.readouterr().out, fmt


def test_the_pytest_failure_masks_the_source_excerpt(leaky_chain: ChainFolder, run_handoffs: object) -> None:
    result = run_handoffs()  # type: ignore[operator]
    result.assert_outcomes(failed=1)
    assert "HX001 unredacted-secret" in result.stdout.str()
    assert TOKEN not in result.stdout.str()
    assert TOKEN not in json.dumps(result.stdout.lines)


def test_a_secret_quoted_by_a_schema_message_is_masked(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    in_repo.edit("01-ba-agent.json", lambda d: d.update(estimated_complexity=TOKEN))
    for fmt in ("text", "json", "sarif", "github", "markdown"):
        assert main(["--format", fmt]) == 1
        out = capsys.readouterr().out
        assert "HS001" in out or "schema" in out, fmt
        assert TOKEN not in out, fmt


def test_every_secret_of_a_string_is_masked_in_the_excerpt(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    second = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    in_repo.edit(
        "01-ba-agent.json", lambda d: d["out_of_scope"].append(f"uses AKIAABCDEFGHIJKLMNOP and {second}")
    )
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "AKIAABCDEFGHIJKLMNOP" not in out
    assert second not in out
    assert "and 1 more secret; remove them or replace them with references to where they are kept" in out


def test_hx001_counts_more_than_one_further_secret_in_the_plural(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    others = " and ".join(f"ghp_{_random_key(36, seed)}" for seed in range(3))
    in_repo.edit("01-ba-agent.json", lambda d: d["out_of_scope"].append(f"uses {others}"))
    assert main([]) == 1
    assert "and 2 more secrets; remove them" in capsys.readouterr().out


def test_a_secret_in_a_file_that_does_not_parse_is_masked_in_the_excerpt(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    path = in_repo.path("01-ba-agent.json")
    path.write_text(
        path.read_text().replace('"requirements",', f'"requirements",\n  "note": "token {TOKEN}" x,', 1)
    )
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "HF002" in out
    assert TOKEN not in out


def test_hx001_still_finds_a_dotted_passphrase_under_a_password_key() -> None:
    assert [kind for kind, _ in find_secrets("correct.horse.battery.stap1", "password")] == [
        "value of 'password'"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "client_secret=Qmzx7-Kpwr9-Ltvb3-Nhsd2",
        "api_key: AKQJ2-WXYZ8-MNOP3-RSTU1",
        "token = ABCD1234_EFGH5678_IJKL9012_MNOP3456",
        "token: ab12.cd34.ef56.gh78.ij90",
        "secret: mysecret.f8Kq2LmZpQ9rT7vW",
        "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6...",
    ],
)
def test_hx001_keys_of_grouped_or_dotted_parts_and_whole_keys_before_an_ellipsis_are_still_secrets(
    text: str,
) -> None:
    assert list(find_secrets(text)) != []


@pytest.mark.parametrize(
    "text",
    [
        '"token": "base64-token-from-email"',
        "apikey: import.meta.env.VITE_SUPABASE_ANON_KEY",
        "var credentials: ClaudeOAuthCredentials?",
        "const fcmToken = userData.fcmToken;",
        "DATABASE_URL=postgresql://app:app@localhost/app",
        "postgresql://{user}:{pass}@{host}/db",
        "the compromised `rk_live_51TKabcdefghijklmnopq...` key",
    ],
)
def test_hx001_placeholders_program_names_documentation_urls_and_cut_keys_are_no_secrets(text: str) -> None:
    assert list(find_secrets(text)) == []


def _random_key(length: int, seed: int) -> str:
    """Letters and digits that read as a credential, made at run time so the repository holds none."""
    chooser = random.Random(seed)
    return "".join(chooser.choice(string.ascii_letters + string.digits) for _ in range(length))


@pytest.mark.parametrize(
    "text",
    [
        "api_key: base64-encoded-key-from-vault-v2",
        "token: my-service-token-v2-staging",
        "api_key: openai-key-for-the-ci-v2",
        "api_key: sk_test_placeholder_value_v1",
        "token: the-new-token-for-Q3-2024",
        "secret: Hello-World!-Example.",
    ],
)
def test_hx001_placeholders_of_words_with_a_version_year_or_abbreviation_are_no_secrets(text: str) -> None:
    assert list(find_secrets(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "token: Kpwr9-Qmzx7-v2-Fg4Hi",
        "api_key: Abc1-Def2-Ghi3-v2",
        "password: " + "-".join(["correct", "horse", "battery", "staple", "v2"]),
    ],
)
def test_hx001_keys_of_groups_with_a_version_part_and_passphrases_are_still_secrets(text: str) -> None:
    assert list(find_secrets(text)) != []


@pytest.mark.parametrize(
    ("name", "template"),
    [
        ("SECRET_KEY", "{name}={value}"),
        ("JWT_SECRET_KEY", '{name}: "{value}"'),
        ("API_SECRET_KEY", "{name}={value}"),
        ("PRIVATE_KEY", "{name}={value}"),
        ("SIGNING_KEY", "{name}: {value}"),
        ("ENCRYPTION_KEY", "{name}={value}"),
        ("ACCESS_KEY", "{name}={value}"),
    ],
)
def test_hx001_finds_the_values_of_secret_signing_and_encryption_keys(name: str, template: str) -> None:
    value = _random_key(32, 1)
    assert list(find_secrets(template.format(name=name, value=value))) == [(f"value of {name!r}", value)]


@pytest.mark.parametrize("name", ["primary_key", "sort_key", "foreign_key", "cache_key", "idempotency_key"])
def test_hx001_leaves_identifiers_under_other_keys_ending_in_key_alone(name: str) -> None:
    assert list(find_secrets(f"{name} = {_random_key(32, 1)}")) == []


@pytest.mark.parametrize(
    "text",
    [
        "GET /v1/items?next_page_token={value}&limit=50",
        '"nextPageToken": "{value}"',
        "NextToken={value}",
        "page_token: {value}",
        "continuation_token={value}",
        '"syncToken": "{value}"',
        "resume_token = {value}",
        '"nextSyncToken": "{value}"',
        '"NextContinuationToken": "{value}"',
        '"newStartPageToken": "{value}"',
        "pagination.next_token={value}",
        "X-Next-Page-Token: {value}",
        "x-ms-continuation-token: {value}",
    ],
)
def test_hx001_leaves_pagination_and_continuation_tokens_alone(text: str) -> None:
    # A position in a listing, handed to anyone who pages: a log line full of them is no leak.
    assert list(find_secrets(text.format(value=_random_key(32, 1)))) == []


@pytest.mark.parametrize(
    "name", ["nextPageToken", "next_token", "page_tokens", "startPageToken", "NextToken"]
)
def test_hx001_leaves_a_pagination_token_under_its_own_key_alone(name: str) -> None:
    assert list(find_secrets(_random_key(32, 1), name)) == []


@pytest.mark.parametrize(
    "name",
    [
        "access_token",
        "refresh_token",
        "session_token",
        "csrf_token",
        "id_token",
        "FB_PAGE_TOKEN",  # a Facebook Page's access token
        "PAGE_TOKEN",
        "SYNC_TOKEN",
        "GH_SYNC_TOKEN",
        "async_token",
    ],
)
def test_hx001_still_finds_credentials_named_token(name: str) -> None:
    value = _random_key(32, 1)
    assert list(find_secrets(f"{name}={value}")) == [(f"value of {name!r}", value)]
    assert list(find_secrets(value, name)) == [(f"value of {name!r}", value)]


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://app:changeme_postgres_password@localhost:5432/app",
        "DB_PASSWORD=change-me-in-production",
        "password: replace_me_with_the_real_one",
        "ADMIN_PASSWORD=CHANGEME_please",
    ],
)
def test_hx001_reads_a_changeme_default_followed_by_words_as_a_placeholder(text: str) -> None:
    assert list(find_secrets(text)) == []


def test_hx001_still_finds_a_random_value_after_a_changeme_prefix() -> None:
    value = "changeme_" + _random_key(24, 2)
    assert list(find_secrets(f"api_key={value}")) == [("value of 'api_key'", value)]


def test_hx001_reports_a_whole_stripe_or_api_key_before_an_ellipsis() -> None:
    stripe = "sk_live_51" + _random_key(97, 2)
    api = "sk-" + _random_key(48, 3)
    assert list(find_secrets(f"STRIPE={stripe}...")) == [("Stripe live key", stripe)]
    assert list(find_secrets(f"the {api}\u2026 key")) == [("API secret key", api)]


def test_hx001_finds_slack_and_discord_webhook_urls_but_not_the_documented_placeholder() -> None:
    slack = f"T{_random_key(8, 4).upper()}/B{_random_key(10, 5).upper()}/{_random_key(24, 6)}"
    discord = "".join(random.Random(7).choice(string.digits) for _ in range(18)) + "/" + _random_key(68, 8)
    assert list(find_secrets(f"notify https://hooks.slack.com/services/{slack} on failure")) == [
        ("Slack webhook URL", slack)
    ]
    assert list(find_secrets(f"https://discord.com/api/webhooks/{discord}")) == [
        ("Discord webhook URL", discord)
    ]
    placeholder = "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24
    assert list(find_secrets(placeholder)) == []


@pytest.mark.parametrize(
    ("template", "password"),
    [
        ("DB_PASSWORD={}", "P@ss" + "w0rd!2024-Prod"),
        ("password = '{}'", "Tr0ub4" + "dor&3xyzQwErTy"),
        ('"password": "{}", "confirm": true', _random_key(12, 9) + "#!%" + _random_key(6, 10)),
    ],
)
def test_hx001_finds_whole_passwords_with_punctuation(template: str, password: str) -> None:
    assert [secret for _, secret in find_secrets(template.format(password))] == [password]


@pytest.mark.parametrize(
    "text",
    [
        "token: AuthTokenProvider.sharedInstance",
        "api_key = settings.OPENAI_API_KEY_FROM_ENVIRONMENT",
        "secret: process.env.SUPABASE_SERVICE_ROLE_KEY",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "access_key: ${{ secrets.AWS_ACCESS_KEY_ID }}",
        "SECRET_KEY = os.environ['DJANGO_SECRET_KEY_PRODUCTION']",
        "password: <your-password>",
        "password: changeme",
        "postgres://postgres:postgres@localhost/app",
        "api_key: authTokenStore.currentSessionToken",
        "password: process.env.DATABASE_PASSWORD!",
    ],
)
def test_hx001_references_to_where_a_secret_is_kept_are_no_secrets(text: str) -> None:
    assert list(find_secrets(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "password=$PostgresPassword2024Prod",
        "token=%GithubReleaseToken2024%",
        "credentials: svc-deploy@my-project-2024.iam.gserviceaccount.com",
        "api_key=sk_live_51HxAbCdEf***Qz9XyWvUt",
        "callback https://example.com/cb?token=Ab12Cd34&state=Xy98Zw76Qp",
    ],
)
def test_hx001_variables_addresses_masked_values_and_url_parameters_are_no_secrets(text: str) -> None:
    assert list(find_secrets(text)) == []


@pytest.mark.parametrize(
    "name", ["signing_key_id", "api_key_url", "secret_arn", "token_hash", "access_key_name"]
)
def test_hx001_a_key_naming_something_about_a_secret_holds_no_secret(name: str) -> None:
    assert list(find_secrets("kid-2024-01-AbC12345xYz9", key=name)) == []
    assert list(find_secrets("kid-2024-01-AbC12345xYz9", key="signing_key")) != []


def test_hx001_the_quick_check_reads_a_long_line_of_key_words_without_a_quote_once() -> None:
    from pytest_handoff.rules.secrets import may_hold_secrets

    progress = " 45%|#####     | 450/1000 [00:10<00:12, 44.1 tokens/s]\r" * 40_000  # 2 MB, no newline
    assert may_hold_secrets(progress) is False
    assert may_hold_secrets("primary key id; " * 100_000) is False
