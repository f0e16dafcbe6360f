"""``handoff-lint mcp``: the JSON-RPC error each line the SDK's stdio transport cannot read gets
(end to end, over stdio, in test_mcp_server.py)."""

from __future__ import annotations

import json

import pytest

from pytest_handoff.agents.mcp import Unreadable, lone_surrogate, unread_line, unreadable, unreadable_answer

SURROGATE = r"holds a lone surrogate (\ud800), which is not Unicode text"


def test_responses_notifications_and_blank_lines_get_no_answer() -> None:
    assert unreadable(r'{"jsonrpc":"2.0","id":1,"result":{"a":"\ud800"}}') is None
    assert unreadable(r'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"\ud800"}}') is None
    assert unreadable(r'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\ud800"}}') is None
    assert unreadable(" \r\n") is None


def test_a_lone_surrogate_is_placed_by_its_json_pointer() -> None:
    assert unreadable(r'{"jsonrpc":"2.0","id":"a","method":"m","params":{"a/b~":["x","\ud800"]}}') == (
        Unreadable(-32602, f"Invalid params: /params/a~1b~0/1 {SURROGATE}", "a")
    )
    assert unreadable(r'"\ud800"') == Unreadable(-32600, f"Invalid Request: the line {SURROGATE}")
    pair = json.loads(r'{"a pair": ["\ud83d\ude00"]}')  # once parsed, one character
    assert lone_surrogate(pair) is None


def test_an_id_that_is_no_request_id_is_not_echoed() -> None:
    for given in ("true", "1.5", "null", r'"\ud800"'):
        answer = unreadable(f'{{"jsonrpc":"2.0","id":{given},"method":"m","params":{{"a":"\\ud800"}}}}')
        assert answer is not None
        assert (answer.code, answer.id) == (-32600, None), given


def test_json_nested_too_deeply_for_the_standard_library_gets_a_parse_error() -> None:
    assert unreadable("[" * 100_000 + "]" * 100_000) == Unreadable(-32700, "Parse error: nested too deeply")


def test_an_error_about_no_line_gets_no_answer() -> None:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'pytest-handoff[mcp]')")
    assert unreadable_answer(OSError("the pipe broke")) is None


def test_the_line_comes_from_a_json_error_and_not_from_a_message_error() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Message(pydantic.BaseModel):
        method: str

    with pytest.raises(pydantic.ValidationError) as json_error:
        Message.model_validate_json('{"method": "x')
    with pytest.raises(pydantic.ValidationError) as message_error:
        Message.model_validate_json('{"method": 7}')
    assert unread_line(json_error.value) == '{"method": "x'
    assert unread_line(message_error.value) is None
