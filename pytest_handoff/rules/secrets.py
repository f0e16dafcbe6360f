"""HX001: no unredacted secret in a handoff, for every profile.

Handoffs are committed and pasted into pull requests; a token an agent copied
from its environment leaks with them. The finding names the kind of secret and
a masked form, never the secret itself, and the source excerpt under it is
masked too (see :func:`secrets_to_mask`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.places.pointers import pointer_join
from pytest_handoff.rules.secret_values import (
    KEY_NAME,
    is_documented_example,
    is_pagination_token,
    looks_random,
    named_not_given,
    url_placeholder,
)
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

# The patterns below are compiled on first use (re keeps them): most runs never need them, as
# may_hold_secrets() clears almost every file, and compiling them costs every pre-commit run.

#: Token formats with a recognisable shape: (kind, pattern); group 1 is the secret when present.
KNOWN_FORMATS: tuple[tuple[str, str], ...] = (
    # The whole block where it is there (a key's body is the secret, not its header line).
    (
        "private key block",
        r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"
        # Without its END line, the body is the base64 lines after the header, not the prose.
        r"(?:[A-Za-z0-9+/=:,\s\\-]*?-----END (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:(?:\s|\\[nr])+[A-Za-z0-9+/=]{16,})*)",
    ),
    ("AWS access key ID", r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b"),
    ("GitHub token", r"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
    ("GitLab token", r"\b(glpat-[A-Za-z0-9_\-]{20,})"),
    ("Slack token", r"\b(xox[abprs]-[A-Za-z0-9-]{10,})"),
    ("Google API key", r"\b(AIza[0-9A-Za-z_\-]{35})"),
    ("Stripe live key", r"\b((?:sk|rk)_live_[0-9A-Za-z]{20,})"),
    ("API secret key", r"\b(sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,})"),
    ("JSON Web Token", r"\b(eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"),
    ("password in a URL", r"\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:([^@\s/]{3,})@"),
    # The URL is a credential: whoever has it posts to the channel. Group 1 is its secret part.
    # (No \b before the host: a pattern that starts with a literal is searched for at C speed.)
    ("Slack webhook URL", r"hooks\.slack\.com/services/(T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})"),
    ("Discord webhook URL", r"discord(?:app)?\.com/api/webhooks/([0-9]{15,20}/[A-Za-z0-9_\-]{50,})"),
)
#: Kinds whose secret part may be a documentation placeholder (``T00000000/B00000000/XXXXXXXX``).
_WEBHOOKS = frozenset({"Slack webhook URL", "Discord webhook URL"})
# key = value, key: value, "key": "value" with a key-like name (one ending in a credential's word,
# or in secret_key, signing_key...) and a long opaque value, punctuation and all (P@ssw0rd!...);
# an & that starts a URL's next parameter (&state=) ends it.
_KEY_VALUE = (
    r"""\b([a-z0-9_.-]*(?:api[_-]?key|secret(?:[_-]?key)?|token|passw(?:or)?d|pwd"""
    r"""|(?:access|private|signing|encryption|master|hmac)[_-]?key|credential)s?)"""
    r"""["']?\s*[:=]\s*["']?((?:[A-Za-z0-9+/=_\-.~!@#$%^*?]|&(?![A-Za-z_]\w*=)){16,})"""
)
# A fast look at a document's text decides whether its strings need a closer one. It works on
# UTF-8 bytes: substring search and lower-casing cost there a fraction of what they cost on text.
# Literal parts of the known formats, found with plain substring search or a regex that starts
# with a literal (which the regex engine skips to at C speed); a webhook's host alone, as JSON may
# escape its path's slashes:
_LITERALS = (b"-----BEGIN", b"github_pat_", b"glpat-", b"_live_", b"eyJ", b"hooks.slack.com", b"discord")
_PREFIXED = (re.compile(rb"A(?:KIA|SIA|Iza)"), re.compile(rb"gh[pousr]_"), re.compile(rb"xox[abprs]-"))
# Shapes that need a pattern are searched only where a cheap substring test finds their start.
_SK_KEY = re.compile(rb"\bsk-[A-Za-z0-9_\-]{20}")
_URL_PASSWORD = re.compile(rb"://[^/\s:@\"]+:[^@\s/\"]{3,}@")
_KEY_WORDS = (b"key", b"secret", b"token", b"passw", b"pwd", b"credential")
# What str's \s matches (str.isspace), spelt in UTF-8, so the byte pattern agrees with _KEY_VALUE.
_SPACE = (
    rb"(?:[\t-\r\x1c-\x20]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
    rb"|\xe2\x81\x9f|\xe3\x80\x80)*"
)
# The file is JSON, so a quote may be escaped (\") and a value character written as an escape
# (\/, \u0041): the value class takes backslashes, which only lengthens what it must span.
_VALUE_START = rb"[A-Za-z0-9+/=_\-.~!@#$%^&*?\\]{16}"
_AFTER_KEY_WORD = re.compile(
    rb"[A-Za-z_\-]*(?:\\?[\"'])?" + _SPACE + rb"[:=]" + _SPACE + rb"(?:\\?[\"'])?" + _VALUE_START
)
# Escapes a JSON writer never needs but that could spell part of a secret's shape: printable
# ASCII (but &, < and >, which some writers always escape), the characters case-insensitive
# matching reads as k, s or i (see _ASCII_FOLDS), and white space (what _SPACE spans, escaped:
# ensure_ascii writes a no-break space between a key and its colon as \u00a0).
_ESCAPED_SHAPE = re.compile(
    rb"\\u(?:00(?:0[9a-d]|1[c-f]|2[0-57-9a-f]|3[0-9abdf]|[4-7][0-9a-f]|85|a0)|0130|0131|017f|212a"
    rb"|1680|200[0-9a]|202[89f]|205f|3000)"
)
# A key-like JSON key holding a string or a list of strings: find_secrets() judges those values
# whatever characters they hold (NeuralRelay's own such keys, tokens_used and total_tokens, hold
# numbers).
_KEY_WITH_TEXT = re.compile(rb'[^"\\\n]*"[ \t\r\n]*:[ \t\r\n]*[\["]')
_KEY_TEXT_STOP = re.compile(rb'["\\\n]')
# Characters that case-insensitive matching reads as k, s or i, where bytes.lower() does not.
_ASCII_FOLDS = (("\u212a", "k"), ("\u017f", "s"), ("\u0130", "i"), ("\u0131", "i"))


def may_hold_secrets(text: str) -> bool:
    """A fast, generous test of a whole file: False means :func:`find_secrets` finds nothing in it."""
    if not text.isascii():
        for special, folded in _ASCII_FOLDS:
            if special in text:
                text = text.replace(special, folded)
    raw = text.encode("utf-8", "surrogatepass")
    if any(literal in raw for literal in _LITERALS) or any(pattern.search(raw) for pattern in _PREFIXED):
        return True
    if b"sk-" in raw and _SK_KEY.search(raw):
        return True
    if b"://" in raw and _URL_PASSWORD.search(raw):
        return True
    if b":\\/\\/" in raw:  # a URL with its slashes escaped: rare, so let the full check look
        return True
    lower = raw.lower()
    if b"\\u" in lower and _ESCAPED_SHAPE.search(lower):
        return True
    for word in _KEY_WORDS:
        start = lower.find(word)
        # _KEY_WITH_TEXT's outcome depends only on the text from the first quote, backslash or
        # newline after its start: a key word before that stop, once failed, fails again there.
        # Without this, a long line of key words and no quote (a log) is read once per word.
        failed_until = -1
        while start >= 0:
            end = start + len(word)
            if _AFTER_KEY_WORD.match(raw, end):
                return True
            if end > failed_until:
                if _KEY_WITH_TEXT.match(lower, end):
                    return True
                stop = _KEY_TEXT_STOP.search(lower, end)
                failed_until = stop.start() if stop else len(lower)
            start = lower.find(word, start + 1)
    return False


#: Keys of no fixed length that people cut short to name them (``rk_live_51TK...``), with the length
#: of the shortest whole one (Stripe's older keys: sk_live_ and 24 characters; OpenAI's: sk- and 48).
#: A key as long before "..." may be whole, and is reported; so is any key of a fixed length.
_CUT_SHORT = {"Stripe live key": 32, "API secret key": 51}


def mask(secret: str) -> str:
    """A form that identifies a secret to its owner without revealing it."""
    shown = secret[:4] if len(secret) >= 12 else ""
    return f"{shown}…({len(secret)} characters)"


def secret_masker(secrets: Sequence[str]) -> Callable[[str], str]:
    """A function that hides every secret (also JSON-escaped, in any case, also in part) in a text.

    A message may quote a string cut short or case-folded, so any run of more than
    :data:`SHOWN_RUN` of a secret's characters, in any case, is hidden too.
    """
    import json  # here: a run that shows nothing masks nothing

    masks: dict[str, str] = {}
    for secret in sorted(secrets, key=len, reverse=True):
        for spelling in (secret, json.dumps(secret)[1:-1]):
            masks.setdefault(spelling.lower(), mask(secret))
    whole = re.compile("|".join(re.escape(s) for s in sorted(masks, key=len, reverse=True)), re.IGNORECASE)
    width = SHOWN_RUN + 1
    runs = [
        ({spelling[i : i + width] for i in range(len(spelling) - width + 1)}, masked)
        for spelling, masked in masks.items()
        if len(spelling) >= width
    ]

    def masked_form(match: re.Match[str]) -> str:
        found = match.group(0)
        # IGNORECASE also matches what lower() does not fold back (the long s, the dotted I).
        return masks.get(found.lower()) or next(
            shown
            for spelling, shown in masks.items()
            if re.fullmatch(re.escape(spelling), found, re.IGNORECASE)
        )

    def hide(text: str) -> str:
        if masks:
            text = whole.sub(masked_form, text)
        for grams, masked in runs:
            text = _hide_runs(text, grams, masked)
        return text

    return hide


#: The longest run of a secret's characters an output may show (a mask shows its first four).
SHOWN_RUN = 7


def _hide_runs(text: str, grams: set[str], masked: str) -> str:
    """``text`` with every run of a secret's ``grams`` (lower-case, :data:`SHOWN_RUN` + 1 long) replaced."""
    lowered = text.lower()
    if not any(gram in lowered for gram in grams):
        return text  # the common case
    width = SHOWN_RUN + 1
    hidden = [False] * len(text)
    for start in range(len(text) - width + 1):
        if text[start : start + width].lower() in grams:
            hidden[start : start + width] = [True] * width
    out: list[str] = []
    index = 0
    while index < len(text):
        if not hidden[index]:
            out.append(text[index])
            index += 1
            continue
        out.append(masked)
        while index < len(text) and hidden[index]:
            index += 1
    return "".join(out)


def find_secrets(text: str, key: str = "") -> Iterator[tuple[str, str]]:
    """(kind, secret) for every secret in a string; ``key`` is the JSON key holding it, if any."""
    for kind, pattern in KNOWN_FORMATS:
        for match in re.finditer(pattern, text):
            secret = match.group(1) if match.re.groups else match.group(0)
            if (
                not is_documented_example(secret)
                and not (kind == "password in a URL" and url_placeholder(secret, match.group(0)))
                and not (kind in _WEBHOOKS and not looks_random(secret.rsplit("/", 1)[-1]))
                and not _cut_short(kind, secret, text, match.end())
            ):
                yield kind, secret
    for match in re.finditer(_KEY_VALUE, text, re.IGNORECASE):
        # A sentence's end, or TypeScript's non-null "!" after a name (process.env.DB_PASSWORD!).
        found = match.group(2).rstrip(".!?")
        if (
            looks_random(found)
            and not is_pagination_token(match.group(1))
            and not is_documented_example(found)
            and not named_not_given(match.group(1), found)
        ):
            yield f"value of {match.group(1)!r}", found
    value = text.strip()
    if (
        key
        and re.search(KEY_NAME, key)
        and not _ABOUT_A_SECRET.search(key)
        and not is_pagination_token(key)
        and looks_random(value)
        and not is_documented_example(value)
        and not named_not_given(key, value)
    ):
        yield f"value of {key!r}", value


# A key that names something about a secret, not the secret: its id, where it is, its hash.
_ABOUT_A_SECRET = re.compile(
    r"(?i)[_-](?:ids?|url|uri|endpoint|path|file|name|type|hash|usage|count|version|arn)$"
)


def _cut_short(kind: str, secret: str, text: str, end: int) -> bool:
    """True for a key of no fixed length cut short to name it (``rk_live_51Ab...``): shorter than
    any whole key of its kind, and followed by an ellipsis."""
    return len(secret) < _CUT_SHORT.get(kind, 0) and text.startswith(("...", "\u2026"), end)


def _texts(root: Any) -> Iterator[tuple[str, str, str, bool]]:
    """(pointer, key holding it, text, is_a_key) for every string and object key of a document."""
    stack: list[tuple[str, str, Any]] = [("", "", root)]
    while stack:
        pointer, key, value = stack.pop()
        if isinstance(value, str):
            yield pointer, key, value, False
        elif isinstance(value, dict):
            for name, child in reversed(value.items()):
                member = pointer_join(pointer, name)
                yield member, "", name, True  # a secret can sit in a key (domain_glossary)
                stack.append((member, name, child))
        elif isinstance(value, list):
            stack.extend((f"{pointer}/{i}", key, value[i]) for i in range(len(value) - 1, -1, -1))


class SecretPlace(NamedTuple):
    """Where a string holding secrets sits, and what they are (the first names the finding)."""

    document: Document
    pointer: str
    is_key: bool
    found: tuple[tuple[str, str], ...]  # (kind, secret)


def secret_places(chain: Group) -> list[SecretPlace]:
    """Every string (and key) of the chain's parsed documents that holds a secret.

    The engine asks this of every chain, whatever rules are selected, to mask what it
    prints; HX001 reports the same places. Computed once per chain.
    """
    places: list[SecretPlace] | None = chain.memo.get("secret_places")
    if places is not None:
        return places
    places = chain.memo["secret_places"] = []
    # Documents that are parts of one text (a JSONL file's lines): one look at the whole text.
    wholes: dict[int, bool] = {}
    for document in chain.documents:  # every parsed document, valid or not
        if document.has_text and document.source_text is not document.text:
            whole = wholes.get(id(document.source_text))
            if whole is None:
                whole = wholes[id(document.source_text)] = may_hold_secrets(document.source_text)
            if not whole:
                continue  # nothing shaped like a secret anywhere in the file
        if not may_hold_secrets(document.text if document.has_text else _as_text(document.data)):
            continue  # the common case: nothing shaped like a secret anywhere in the file
        for pointer, key, text, is_key in _texts(document.data):
            found = tuple(find_secrets(text, key))
            if found:
                places.append(SecretPlace(document, pointer, is_key, found))
    return places


def _as_text(data: Any) -> str:
    """Decoded data (a phrase's base64 context, a store's row) as text for the quick pre-check."""
    import json

    return json.dumps(data, ensure_ascii=False)


def secrets_to_mask(chain: Group) -> list[str]:
    """Every secret of the chain's parsed documents, to mask in messages, pointers and excerpts.

    A document decoded from something its file shows as a whole (a Ralph phrase's base64
    context) has its whole encoded form masked too when it holds a secret: the excerpt of its
    line would show the secret encoded.
    """
    places = secret_places(chain)
    secrets = [secret for place in places for _, secret in place.found]
    for document in {id(place.document): place.document for place in places}.values():
        if document.fixed is not None:
            encoded = _fixed_text(document)
            if encoded:
                secrets.append(encoded)
    return secrets


def _fixed_text(document: Document) -> str:
    """The text of a document's fixed region in its file (one line: a phrase's context field)."""
    region = document.fixed
    assert region is not None
    lines = re.split(r"\r\n|\r|\n", document.source_text)
    if not 0 < region.line <= len(lines):
        return ""
    line = lines[region.line - 1]
    end = region.end_column if region.end_line == region.line else len(line)
    return line[region.column - 1 : end]


def check_no_secrets(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A handoff contains no unredacted secret.

    **What it does**: looks in every string (and key) of every parsed handoff for private key
    blocks, cloud and VCS tokens (AWS, GitHub, GitLab, Slack, Google, Stripe, `sk-` API keys),
    JSON Web Tokens, passwords in URLs, Slack and Discord webhook URLs, and long high-entropy values
    assigned to key-like names (`api_key=…`, `SECRET_KEY=…`, `"client_secret": "…"`; not
    `primary_key` or `sort_key`, nor a pagination token such as `next_page_token`). The finding
    shows only a masked form. A key's name alone never makes a path or a file name a secret
    (`"design_tokens": "phases/01-auth/design-tokens.jsonl"`),
    and credentials vendors publish as examples (AWS's `AKIAIOSFODNN7EXAMPLE` and its secret
    ending in `EXAMPLEKEY`) are not secrets, as common secret scanners treat them.

    **Why is this bad?** Handoffs are committed, pasted into pull requests and read by other
    agents; a credential copied from an agent's environment leaks with them.

    **Example**: `"known_risks": ["staging uses GITHUB_TOKEN=ghp_…"]` with the token's 36 characters.

    **Use instead**: name the secret, never its value: `"staging uses the GITHUB_TOKEN secret"`.

    Whether or not this rule is selected, every output masks the secrets it finds.
    """
    for place in secret_places(chain):
        kind, secret = place.found[0]
        yield Hit(  # one finding per string is enough to act on
            place.document,
            place.pointer,
            f"possible {kind}: {mask(secret)}{_more(len(place.found) - 1)}",
            anchor="key" if place.is_key else "value",
        )


def _more(others: int) -> str:
    """The message's end after the first secret, for one secret or more."""
    if not others:
        return "; remove it or replace it with a reference to where it is kept"
    return f" and {counted(others, 'more secret')}; remove them or replace them with references to where they are kept"
