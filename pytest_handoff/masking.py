"""Masking: every secret found in a chain is hidden from whatever the run prints.

An engine step that always runs, whatever rules are selected: messages quote values (in part),
excerpts show lines, notes quote matched text, and none of them may show a secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence


def secret_masker(secrets: Sequence[str]) -> Callable[[str], str]:
    """A function that hides every secret (also JSON-escaped, in any case, also in part) in a text.

    A message may quote a string cut short or case-folded, so any run of more than
    :data:`SHOWN_RUN` of a secret's characters, in any case, is hidden too.
    """
    from pytest_handoff.secrets import mask

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
