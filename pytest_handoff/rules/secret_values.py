"""What a value under a key-like name is: a credential, or a name, placeholder, path or reference.

HX001 (:mod:`pytest_handoff.rules.secrets`) asks these of the long values it finds after
``api_key=``, ``"client_secret":`` and the like. A false secret costs more trust than a
missed one, so each check here names a shape people write that is not a secret.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from pytest_handoff.rules.text import IDENTIFIER_PARTS

#: Names of credentials. A key's name is one when it holds one of these; of the names ending in "key",
#: only these kinds (not ``primary_key``, ``sort_key``, ``cache_key``: their values are identifiers).
KEY_NAME = (
    r"(?i)(api[_-]?key|secret|token|passw(?:or)?d|pwd|access[_-]?key|private[_-]?key|credential"
    r"|(?:signing|encryption|master|hmac)[_-]?key)"
)
PLACEHOLDER = (
    r"(?i)^(?:x+|\*+|\.+|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|redacted|example\w*|your[_-]\w+"
    # A default asking to be replaced, also followed by words: changeme_postgres_password.
    r"|(?:change|replace)[_-]?me(?:[_-](?-i:[a-z]+))*)$"
)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    from math import log2  # only values already long and key-like get here

    counts = Counter(text)
    return -sum(n / len(text) * log2(n / len(text)) for n in counts.values())


def looks_random(value: str) -> bool:
    """A long value mixing character classes with high entropy: a credential, not a word, a path,
    an address, a masked value or a reference to where the value is kept."""
    if len(value) < 16 or re.match(PLACEHOLDER, value) or any(c.isspace() for c in value):
        return False  # prose has spaces; credentials do not
    if looks_like_path(value):
        return False  # "design_tokens": "phases/01-auth/design-tokens.jsonl" names a file
    if value.startswith(("$", "%")) or "***" in value or _EMAIL.fullmatch(value):
        return False  # $DB_PASSWORD, %API_TOKEN%, sk_live_****abcd, deploy@proj.iam.gserviceaccount.com
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    return classes >= 2 and entropy(value) >= 3.5


_EMAIL = re.compile(r"[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_WORD = re.compile(r"[a-z]+[0-9]*|[A-Z]+[0-9]*|[A-Z][a-z]+[0-9]*|[0-9]+")
#: A version, quarter or year in a placeholder's name (``key-from-vault-v2``, ``token-2024``).
_VERSION = re.compile(r"[vV][0-9]+|[qQ][1-4]|(?:19|20)[0-9]{2}")
#: Abbreviations without a vowel that placeholders' names use (``openai-key-for-the-ci-v2``).
_ABBREVIATIONS = frozenset(
    {"ci", "cd", "db", "sk", "pk", "rk", "s3", "gcp", "gh", "jwt", "ssh", "tls", "ssl", "pgp", "gpg",
     "pem", "rsa", "sql", "npm", "hmac", "mfa", "sms", "smtp", "http", "https", "cdn", "dns", "kms", "sdk",
     "prd", "stg"}
)  # fmt: skip


_MEMBER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
#: A constant's or an environment variable's name (``DATABASE_PASSWORD``).
_SNAKE_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)+")
_CAMEL_WORD = re.compile(r"[A-Z][a-z]+|[A-Z]+(?=[A-Z][a-z]|[0-9]|$)|[a-z]+|[0-9]+")
#: Passwords of documentation's example URLs (``postgresql://user:pass@host/db``).
_EXAMPLE_PASSWORDS = frozenset(
    {"pass", "password", "passwd", "pwd", "pw", "secret", "changeme", "user", "xxx", "test", "testing",
     "postgres", "mysql", "admin", "root", "guest", "dev", "demo", "example", "sample", "local", "redis"}
)  # fmt: skip


def reads_as_words(value: str) -> bool:
    """True for words joined by ``-``, ``_``, ``.`` or other punctuation, each of one case
    (``base64-token-from-email``, ``import.meta.env.VITE_API_KEY``): a placeholder or a name,
    where a credential runs its letters together (``sk_live_51HxYzAbC...``)."""
    parts = re.split(r"[._\-!@#$%^&*?~]+", value.strip("._-"))
    return (
        len(parts) >= 3
        and all(part and len(part) <= 14 and _WORD.fullmatch(part) and _reads(part) for part in parts)
        # "Abc1-Def2-Ghi3": a key's groups; a version or a year is no group ("base64-key-v2")
        and sum(any(c.isdigit() for c in part) and not _VERSION.fullmatch(part) for part in parts) <= 1
    )


def _reads(part: str) -> bool:
    """A part of a name people write: digits alone, letters with a vowel (``Kpwr9`` has none),
    a version (``v2``) or a common abbreviation (``db``)."""
    letters = part.rstrip("0123456789")
    return (
        not letters
        or any(c in "aeiouyAEIOUY" for c in letters)
        or bool(_VERSION.fullmatch(part))
        or part.lower() in _ABBREVIATIONS
    )


#: Tokens that say where a listing goes on (``next_page_token``, ``NextContinuationToken``,
#: ``nextSyncToken``, ``X-Next-Page-Token``): a position in someone's data, handed to anyone who
#: pages, not a credential. The word before "token" says what it is; the words before that may
#: only say which one.
_PAGING = frozenset({"page", "next", "continuation", "pagination", "sync", "resume", "resumption"})
_WHICH = frozenset({"next", "prev", "previous", "start", "new", "x", "ms"})


def is_pagination_token(key: str) -> bool:
    """True for the name of a pagination or continuation token, the last part of a dotted name
    (``pagination.next_token``). Not a name in capitals: ``PAGE_TOKEN`` (a Facebook Page's access
    token) or ``SYNC_TOKEN`` in an environment is a credential, and so is ``FB_PAGE_TOKEN``."""
    name = key.rsplit(".", 1)[-1]
    if name.isupper():
        return False
    words = [word.lower() for word in IDENTIFIER_PARTS.findall(name)]
    return (
        len(words) >= 2
        and words[-1] in ("token", "tokens")
        and words[-2] in _PAGING
        and all(word in _WHICH for word in words[:-2])
    )


def named_not_given(key: str, value: str) -> bool:
    """True for a value under a key-like name that names or stands for the secret rather than
    holding it: a placeholder of words (``token: base64-token-from-email``; under a password's
    name, words are a passphrase and count), or a program's name for it (:func:`names_its_kind`)."""
    if reads_as_words(value) and not re.search(r"(?i)passw|pwd|passphrase", key):
        return True
    return names_its_kind(key, value)


def names_its_kind(key: str, value: str) -> bool:
    """True for a type or variable name after a key-like word (``credentials: ClaudeOAuthCredentials``,
    ``token: AuthTokenProvider``, ``fcmToken = userData.fcmToken``): long words in camel case, or
    a dotted member of a program whose every part is such a name or a constant's
    (``process.env.DATABASE_PASSWORD``); one of them the key's own word or another credential's
    (``api_key: authTokenStore.currentSessionToken``)."""
    kind = re.search(KEY_NAME, key)
    if kind is None:
        return False
    word = kind.group(0).lower()[:5]
    parts = value.split(".") if _MEMBER.fullmatch(value) else [value]
    return (word in value.lower() or re.search(KEY_NAME, value) is not None) and all(
        len(part) < 12 or _camel_words(part) or (len(parts) > 1 and _SNAKE_NAME.fullmatch(part))
        for part in parts
    )


def _camel_words(name: str) -> bool:
    """A name of long words run together in camel case (``SubscriptionToken``), not random letters
    (``f8Kq2LmZpQ9rT7vW`` splits into words of one or two letters)."""
    if not name.isalpha():
        return False
    words = _CAMEL_WORD.findall(name)
    return "".join(words) == name and 1 <= len(words) <= len(name) / 4 and sum(len(w) < 3 for w in words) <= 1


def url_placeholder(password: str, url: str) -> bool:
    """A URL's password from documentation: a common default, a ``{pass}`` slot, or the user's name
    again (``postgresql://app:app@localhost``)."""
    user = re.search(r"://([^/\s:@]+):", url)
    return (
        password.lower() in _EXAMPLE_PASSWORDS
        or bool(re.match(PLACEHOLDER, password))
        or (password.startswith("{") and password.endswith("}"))
        or (user is not None and user.group(1) == password)
    )


#: A part of a file name or path written by people: words, numbers and capitalised words joined
#: by ".", "-" or "_" (base64 runs its letters together: wJalrXUtnFEMI).
_NAME_PART = r"(?:[a-z]+[0-9]*|[A-Z][a-z]*[0-9]*|[0-9]+[a-z]*)"


@cache
def _path_segment() -> re.Pattern[str]:
    """Compiled on first use: only a long value under a key-like name is asked about."""
    return re.compile(rf"\.?{_NAME_PART}(?:[._-]{_NAME_PART})*")


#: File name endings that make a value without a slash a file name (``plan.v2.md``); a dotted
#: passphrase (``correct.horse.battery.stap1``) ends otherwise.
_FILE_ENDINGS = (
    ".json", ".jsonl", ".md", ".txt", ".yaml", ".yml", ".toml", ".py", ".ts", ".tsx", ".js", ".jsx",
    ".go", ".rs", ".java", ".rb", ".sh", ".sql", ".csv", ".log", ".html", ".css", ".xml", ".lock", ".cfg", ".ini",
)  # fmt: skip


def looks_like_path(value: str) -> bool:
    """True for a path or file name (``phases/01-auth/design-tokens.jsonl``, ``plan.v2.md``)."""
    if "/" not in value and not value.endswith(_FILE_ENDINGS):
        return False
    segments = [segment for segment in value.split("/") if segment not in ("", ".", "..", "~")]
    return bool(segments) and all(_path_segment().fullmatch(segment) for segment in segments)


def is_documented_example(secret: str) -> bool:
    """True for a credential the vendor publishes as an example (AWS's ``AKIAIOSFODNN7EXAMPLE`` and
    its secret ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``): public, and found in every tutorial."""
    return secret.endswith(("EXAMPLE", "EXAMPLEKEY"))
