"""Flat shapes of YOLO messages that other versions of its handoff-schemas document.

The catalogue's own shapes (:mod:`messages_work`, :mod:`messages_teams`) are those of the flat
protocol YOLO documented from 2026-02-13 to 2026-02-19 (tags v0.2.3 to v0.2.5). Earlier, its
first flat protocol (2026-02-08 to 2026-02-10) documented two of the same types otherwise; a
message written then is still a valid message of its type. The v2 envelope's payloads are the
project's to declare (``message-schemas.json``), so only flat shapes are listed here.
"""

from __future__ import annotations

from pytest_handoff.profiles.yolo.fields import LEVELS, O, R, Schema, list_of, one_of, record, text
from pytest_handoff.profiles.yolo.messages_work import WORK_MESSAGES

#: How the catalogue's own shapes are named when a message fits no version of its type.
CURRENT_VERSION = "v0.2.3-v0.2.5 (2026-02-13..19)"
FIRST_FLAT = "first flat protocol (2026-02-08..10)"

#: type -> ((version, fields as name -> (schema, required)), ...), oldest first.
EARLIER_FLAT: dict[str, tuple[tuple[str, dict[str, tuple[Schema, bool]]], ...]] = {
    "scout_findings": (
        (
            FIRST_FLAT,
            {
                "domain": (one_of("The domain.", "tech-stack", "architecture", "quality", "concerns"), R),
                "documents": (
                    list_of(
                        "Documents written for the domain.",
                        record(
                            {
                                "name": (text("File name.", empty=False), R),
                                "content": (text("Its Markdown."), R),
                            }
                        ),
                    ),
                    R,
                ),
                "cross_cutting": (
                    list_of(
                        "Findings for another domain.",
                        record(
                            {
                                "target_domain": (text("The other domain.", empty=False), R),
                                "finding": (text("What was found.", empty=False), R),
                                "relevance": (text("Why it matters there."), O),
                            }
                        ),
                    ),
                    O,
                ),
                "confidence": (one_of("How sure.", *LEVELS), R),
                "confidence_rationale": (text("Why so sure."), R),
            },
        ),
    ),
    "qa_result": (
        (
            FIRST_FLAT,
            {
                # The verdict and its checks as the catalogue's own shape has them, with the report
                # in Markdown where later versions name their artifact.
                **{
                    key: field
                    for key, field in WORK_MESSAGES["qa_result"][1].items()
                    if key not in ("artifact", "committed")
                },
                "body": (text("The verification report, in Markdown."), R),
            },
        ),
    ),
}
