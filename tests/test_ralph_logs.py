"""Reading Ralph agent logs: phrases become documents placed at their context; RL001-RL004."""

from __future__ import annotations

import base64
from pathlib import Path

from pytest_handoff.profiles.ralph.logs import (
    LogLine,
    Phrase,
    Promise,
    _marked_lines,
    decode_context,
    read_log,
)
from pytest_handoff.values.findings import Region, Severity
from tests.ralph_helpers import PROMISE, READY, column_of, context, encode, log_documents, phrase


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def test_a_phrase_becomes_a_document_placed_at_its_context() -> None:
    line = phrase("qa", sender="developer", reason="ready_for_qa")
    documents, findings = log_documents(["compiling", READY, line])

    assert findings == ()
    (document,) = documents
    assert isinstance(document, Phrase)
    start = column_of(line, "eyJ")
    assert document.fixed == Region(3, start, 3, len(line))
    assert document.data == context(sender="developer", reason="ready_for_qa")
    assert (document.text, document.label, document.target, document.log_agent) == (
        "",
        "line 3",
        "qa",
        "developer",
    )
    assert document.source_text.splitlines()[2] == line


def test_the_watchdog_pattern_ignores_case_and_spaces_around_the_colons() -> None:
    encoded = encode(context())
    line = f"  Done. handoff : Developer :  {encoded}   "
    documents, findings = log_documents([READY, line], name="pm.log")

    assert findings == ()
    (document,) = documents
    assert isinstance(document, Phrase)
    assert document.target == "developer"
    start = column_of(line, encoded)
    assert document.fixed == Region(2, start, 2, start + len(encoded) - 1)


def test_rl001_reports_a_phrase_to_an_unknown_agent_at_the_agent_name() -> None:
    line = "HANDOFF:tester:" + encode(context())
    documents, findings = log_documents([READY, line])

    assert documents == ()
    (finding,) = findings
    assert (finding.code, finding.line, finding.column, finding.end_column) == ("RL001", 2, 9, 14)
    assert "'tester'" in finding.message


def test_rl001_suggests_the_agent_closest_to_a_misspelt_one() -> None:
    _, findings = log_documents([READY, "HANDOFF:develper:" + encode(context())])
    (finding,) = findings
    assert finding.code == "RL001"
    assert finding.message.endswith("so it ignores this phrase; did you mean 'developer'?")


def test_rl001_does_not_fire_for_the_three_agents_or_the_ready_signal() -> None:
    lines = [READY, phrase("qa", sender="developer", reason="ready_for_qa"), READY + ": yes"]
    _, findings = log_documents(lines)
    assert [f.code for f in findings] == []


def test_rl002_reports_a_phrase_with_no_context_which_the_watchdog_ignores() -> None:
    _, findings = log_documents([READY, "HANDOFF:qa:"])

    (finding,) = findings
    assert (finding.code, finding.line, finding.column) == ("RL002", 2, 1)
    assert "no context" in finding.message


def test_rl002_reports_each_way_a_base64_context_cannot_be_read_at_the_context() -> None:
    bad = {
        "not valid base64": "eyJmcm9tIjoicG0iLCJyZWFzb24i" + "Q",  # 29 characters: one past a multiple of 4
        "not UTF-8": _b64(b"\xff\xfe\xfd" * 8),
        "not JSON": _b64(b"{'from': 'pm', 'reason': 'x'}"),
        "a duplicate key": _b64(b'{"from": "pm", "from": "qa", "reason": "error"}'),
        "too deep": _b64(b"[" * 300 + b"]" * 300),
        "JSON list": _b64(b'["pm", "developer", "qa"]'),
    }
    for what, encoded in bad.items():
        line = f"HANDOFF:developer:{encoded}"
        documents, findings = log_documents([READY, line], name="pm.log")
        assert documents == (), what
        (finding,) = findings
        assert (finding.code, finding.severity, finding.line) == ("RL002", Severity.ERROR, 2), what
        assert (finding.column, finding.end_column) == (19, len(line)), what


def test_rl002_messages_say_what_is_wrong() -> None:
    assert "not valid base64" in str(decode_context("eyJmcm9tIjoicG0iLCJyZWFzb24iQ")[1])
    assert "not UTF-8" in str(decode_context(_b64(b"\xff\xfe\xfd" * 8))[1])
    assert "not strict JSON: invalid JSON" in str(decode_context(_b64(b"{'from': 'pm', 'reason': 'x'}"))[1])
    assert "JSON list, not an object" in str(decode_context(_b64(b'["pm", "developer", "qa"]'))[1])


def test_rl002_reports_a_base64_json_context_that_breaks_off_at_the_phrase() -> None:
    line = "HANDOFF:developer:eyJmcm9tIjoi\u2026!!!notbase64"
    documents, findings = log_documents([READY, line], name="pm.log")
    assert documents == ()
    (finding,) = findings
    assert (finding.code, finding.severity, finding.line, finding.column) == ("RL002", Severity.ERROR, 2, 19)
    assert "breaks off at character 13" in finding.message


def test_rl003_still_takes_prose_for_a_plain_text_context() -> None:
    assert decode_context("eyJ is how base64 of an object starts") == (None, "")
    assert decode_context("please test the login page") == (None, "")


def test_rl002_does_not_fire_for_base64_without_its_padding() -> None:
    encoded = encode(context()).rstrip("=")
    assert len(encoded) % 4  # the context's length is not a multiple of 4: padding was needed
    documents, findings = log_documents([READY, f"HANDOFF:developer:{encoded}"], name="pm.log")
    assert findings == ()
    assert documents[0].data == context()


def test_rl003_warns_about_a_plain_text_context_at_the_context() -> None:
    line = "HANDOFF:qa:feature done, please test feat-101"
    documents, findings = log_documents([READY, line])

    assert documents == ()
    (finding,) = findings
    assert (finding.code, finding.severity) == ("RL003", Severity.WARNING)
    assert (finding.line, finding.column, finding.end_column) == (2, 12, len(line))


def test_rl003_does_not_fire_for_a_base64_context() -> None:
    _, findings = log_documents([READY, phrase("qa", sender="developer", reason="ready_for_qa")])
    assert findings == ()


def test_rl004_reports_a_phrase_with_no_ready_signal_before_it_at_the_phrase() -> None:
    line = "Handing over now: " + phrase("qa", sender="developer", reason="ready_for_qa")
    _, findings = log_documents(["committed", line])

    (finding,) = findings
    assert (finding.code, finding.line, finding.column, finding.end_column) == ("RL004", 2, 19, 28)


def test_rl004_does_not_fire_when_the_ready_signal_comes_first_on_an_earlier_or_the_same_line() -> None:
    handoff = phrase("qa", sender="developer", reason="ready_for_qa")
    assert log_documents([READY, "saving done", handoff])[1] == ()
    assert log_documents([f"{READY} {handoff}"])[1] == ()


def test_rl004_fires_when_the_ready_signal_follows_the_phrase() -> None:
    handoff = phrase("qa", sender="developer", reason="ready_for_qa")
    # The watchdog reads the rest of the line as the context: the signal corrupts its base64 (RL002).
    assert [f.code for f in log_documents([f"{handoff} {READY}"])[1]] == ["RL004", "RL002"]
    assert [f.code for f in log_documents([handoff, READY])[1]] == ["RL004"]


def test_rl004_asks_each_handoff_for_a_ready_signal_of_its_own() -> None:
    first = phrase("qa", sender="developer", reason="ready_for_qa")
    second = phrase("pm", sender="developer", reason="need_clarification")
    _, findings = log_documents([READY, first, "back again", second, READY, first])

    assert [(f.code, f.line) for f in findings] == [("RL004", 4)]


def test_a_completion_promise_becomes_a_document_at_the_promise() -> None:
    documents, findings = log_documents(["all items pass", f"Done: {PROMISE}"], name="pm.log")

    assert findings == ()
    (document,) = documents
    assert isinstance(document, Promise)
    assert document.fixed == Region(2, 7, 2, 6 + len(PROMISE))


def test_a_mention_of_ralph_complete_outside_the_promise_tag_is_no_promise() -> None:
    documents, _ = log_documents(["I will print RALPH_COMPLETE once every item passes"], name="pm.log")
    assert documents == ()


def test_a_byte_order_mark_is_stripped_and_the_columns_stay_those_of_the_text() -> None:
    line = phrase("developer")
    raw = b"\xef\xbb\xbf" + f"{READY}\n{line}\n".encode()
    loaded = read_log(raw, Path("pm.log"), "pm.log")

    assert loaded.findings == ()
    assert loaded.documents[0].fixed == Region(2, 19, 2, len(line))


def test_line_numbers_count_crlf_and_lone_cr_breaks_as_editors_do() -> None:
    line = phrase("developer")
    raw = f"one\r\ntwo\rthree\n\r\n{READY}\r\n{line}\r\n".encode()
    loaded = read_log(raw, Path("pm.log"), "pm.log")

    assert loaded.findings == ()
    assert loaded.documents[0].fixed == Region(6, 19, 6, len(line))


def test_bytes_that_are_not_utf8_do_not_hide_the_phrases_after_them() -> None:
    line = phrase("developer")
    raw = b"binary \xff\xfe output\n" + f"{READY}\n{line}\n".encode()
    loaded = read_log(raw, Path("pm.log"), "pm.log")
    assert [d.fixed for d in loaded.documents if isinstance(d, Phrase)] == [Region(3, 19, 3, len(line))]


def test_a_large_log_places_its_phrases_on_the_right_lines() -> None:
    filler = [f"step {n}: compiled module {n}" for n in range(100_000)]
    handoff = phrase("qa", sender="developer", reason="ready_for_qa")
    lines = [*filler, READY, handoff, *filler, "handoff: tester: x"]
    documents, findings = log_documents(lines)

    assert [d.fixed.line for d in documents if d.fixed] == [100_002]
    assert [(f.code, f.line, f.column) for f in findings] == [("RL001", 200_003, 10)]


def test_only_lines_holding_a_marker_are_looked_at() -> None:
    text = "a\nb HANDOFF here\r\nc\rd agent_ready e\n\nf <promise>RALPH_COMPLETE</promise>"
    marked = [(line.number, line.text) for line in _marked_lines(text)]
    assert marked == [
        (2, "b HANDOFF here"),
        (4, "d agent_ready e"),
        (6, "f <promise>RALPH_COMPLETE</promise>"),
    ]


def test_each_line_reported_on_is_also_a_document_of_its_text_where_secrets_are_looked_for() -> None:
    lines = ["token ghp_abcdefghijklmnopqrstuvwxyz0123456789", READY, "HANDOFF:qa:use token ghp_abc", "done"]
    loaded = read_log(("\n".join(lines) + "\n").encode(), Path("developer.log"), "developer.log")

    shown = [(d.fixed, d.data) for d in loaded.documents if isinstance(d, LogLine)]
    assert shown == [(Region(3, 1, 3, len(lines[2])), lines[2])]  # the RL003 line; not lines 1, 2, 4


def test_rl002_holds_a_decoded_context_to_the_rules_of_a_json_file() -> None:
    duplicate = decode_context(_b64(b'{"from": "pm", "from": "qa", "reason": "error"}'))[1]
    assert "duplicate key 'from'" in str(duplicate)
    assert "nests deeper than 256" in str(decode_context(_b64(b"[" * 300 + b"]" * 300))[1])
    assert "Infinity is not a finite number" in str(decode_context(_b64(b'{"from": "pm", "n": Infinity}'))[1])


def test_the_text_of_a_phrase_line_leaves_out_the_base64_its_document_decoded() -> None:
    handoff = phrase("qa", sender="developer", reason="ready_for_qa")
    lines = [READY, f"sent {handoff}  "]
    loaded = read_log(("\n".join(lines) + "\n").encode(), Path("developer.log"), "developer.log")

    assert [d.data for d in loaded.documents if isinstance(d, LogLine)] == ["sent HANDOFF:qa:…  "]


def test_rl002_reports_a_base64_json_context_cut_short_without_failing() -> None:
    documents, findings = log_documents([READY, "HANDOFF:developer:eyJhYmNk"], name="pm.log")
    assert documents == ()
    assert [(f.code, f.severity) for f in findings] == [("RL002", Severity.ERROR)]
    assert "cut short (8 characters)" in findings[0].message
