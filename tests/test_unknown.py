from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

import chatcodec as cc
from chatcodec._unknown import capture_json, prepare_builtins, tags_at


class Box(msgspec.Struct, forbid_unknown_fields=True):
    items: dict[str, cc.Message] = {}
    plain: dict[str, Any] = {}


class Strict(msgspec.Struct, forbid_unknown_fields=True):
    n: int = 0


class TestCaptureJson:
    """Unknown fields move to the extras of the record that holds them."""

    def test_nothing_to_move(self) -> None:
        assert capture_json(b'{"role":"user","content":"x"}', cc.Message) is None
        assert capture_json(b'"text"', cc.Message) is None

    def test_moves_and_keeps_other_bytes(self) -> None:
        data = (
            b'{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":{ "a":1 }}],"x":1}'
        )
        moved = capture_json(data, cc.Message)
        assert moved is not None
        assert json.loads(moved)["extras"] == {"x": 1}
        assert b'{ "a":1 }' in moved

    def test_dict_values_are_walked(self) -> None:
        data = b'{"items":{"a":{"role":"user","content":"x","k":1}},"plain":{"z":1}}'
        box = cc.decode(data, type=Box)
        assert box.items["a"].extras == {"k": 1}
        assert box.plain == {"z": 1}

    def test_unknown_field_without_a_home_is_still_an_error(self) -> None:
        with pytest.raises(cc.ValidationError, match="Object contains unknown field"):
            cc.decode(b'{"n":1,"secret":2}', type=Strict)

    def test_extras_must_be_an_object(self) -> None:
        with pytest.raises(cc.ValidationError, match=r"- at `\$.extras`"):
            cc.decode(b'{"role":"user","content":"x","extras":5,"y":1}')
        with pytest.raises(cc.ValidationError, match=r"must be an object - at `\$.extras`"):
            prepare_builtins({"role": "user", "content": "x", "extras": 5, "y": 1}, cc.Message)

    def test_tags_at(self) -> None:
        assert tags_at(list[cc.Message], "$[3].role") == [r.value for r in cc.Role]
        assert tags_at(cc.Message, "$.content[0].type") == [
            *("text", "image", "audio", "file", "file_reference", "mcp_resource", "opaque"),
            *("reasoning", "refusal"),
        ]
        assert tags_at(Box, "$.items[...].role")[0] == "system"
        assert tags_at(cc.Message, "$.content") == []


class TestPrepareBuiltins:
    """Values decoded from msgpack become ready for msgspec.convert."""

    def test_raw_text_becomes_raw(self) -> None:
        values = {
            "role": "assistant",
            "tool_calls": [{"id": "c", "name": "f", "arguments": '{"a":1}'}],
        }
        ready = prepare_builtins(values, cc.Message)
        assert isinstance(ready["tool_calls"][0]["arguments"], msgspec.Raw)

    def test_objects_at_raw_positions_are_encoded(self) -> None:
        ready = prepare_builtins({"id": "c", "name": "f", "arguments": {"a": 1}}, cc.ToolCall)
        assert bytes(ready["arguments"]) == b'{"a":1}'

    def test_unknown_fields_without_extras_stay_for_convert_to_report(self) -> None:
        assert prepare_builtins({"n": 1, "q": 2}, Strict) == {"n": 1, "q": 2}

    def test_non_matching_values_pass_through(self) -> None:
        assert prepare_builtins([1, 2], cc.Message) == [1, 2]
        assert prepare_builtins({"role": "x"}, cc.Message) == {"role": "x"}
