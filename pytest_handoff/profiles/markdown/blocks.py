"""Which lines of a Markdown body are code: fenced blocks, and indented blocks as CommonMark reads them.

An indented block is a run of lines indented four columns past the text they stand in, after a
blank line (it never breaks into a paragraph): at the margin, four spaces; in a list item, four
past the item's text, whose own continuation lines are indented less and are prose.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(?:```|~~~)")
# A list item's marker and the spaces after it (four at most count: more start code in the item).
_MARKER = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( {1,4}|$)")
_HEADING = re.compile(r"^ {0,3}#")
_CODE_INDENT = 4


def code_lines(lines: list[str], first: int) -> set[int]:
    """The 0-based indexes of ``lines[first:]`` that are code, fenced or indented."""
    code: set[int] = set()
    fence = False
    items: list[int] = []  # the text column of each open list item, innermost last
    block = -1  # the indent an open indented block's lines have at least (-1: none is open)
    after_break = True  # the line before was blank, a heading or a fence: a block may open here
    for index in range(first, len(lines)):
        text = lines[index].expandtabs(4)
        if not text.strip():
            after_break = True
            if fence or block >= 0:
                code.add(index)
            continue
        indent = len(text) - len(text.lstrip(" "))
        if fence:
            code.add(index)
            fence = not _FENCE.match(text)
            after_break = not fence
            continue
        if block >= 0 and indent >= block:
            code.add(index)
            continue
        block = -1
        if after_break:
            while items and indent < items[-1]:
                items.pop()  # after a blank line, a line left of an item's text ends the item
            margin = items[-1] if items else 0
            if indent >= margin + _CODE_INDENT:
                block = margin + _CODE_INDENT
                code.add(index)
                continue
        if _FENCE.match(text):
            fence = True
            code.add(index)
            continue
        marker = _MARKER.match(text)
        if marker:
            while items and indent < items[-1]:
                items.pop()  # a sibling or an outer item closes the items right of it
            items.append(len(marker.group(1)) + len(marker.group(2)) + max(1, len(marker.group(3))))
            after_break = False
        elif _HEADING.match(text):
            items.clear()  # a heading ends every list
            after_break = True
        else:
            after_break = False
    return code
