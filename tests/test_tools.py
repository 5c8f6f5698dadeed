from __future__ import annotations

import dataclasses
from typing import Any, NotRequired, TypedDict

import msgspec
import pytest
from msgspec import UNSET, Raw

import chatcodec as cc


def call(arguments: bytes = b'{"city": "Paris", "days": 3, "tags": ["a"]}') -> cc.ToolCall:
    return cc.ToolCall("call_1", "get_weather", Raw(arguments))


class TestToolCallRules:
    """A ToolCall checks id, name and the object-ness of its arguments in O(1)."""

    def test_valid(self) -> None:
        assert call().name == "get_weather"
        assert cc.ToolCall("c", "f", Raw(b'  \n{"a":1}')).id == "c"

    @pytest.mark.parametrize(
        ("id", "name", "arguments", "path"),
        [
            ("", "f", Raw(b"{}"), "$.id"),
            ("c", "", Raw(b"{}"), "$.name"),
            ("c", "f", Raw(b"[1]"), "$.arguments"),
            ("c", "f", Raw(b'"{}"'), "$.arguments"),
            ("c", "f", Raw(b""), "$.arguments"),
            ("c", "f", '{"a":1}', "$.arguments"),
        ],
    )
    def test_invalid(self, id: str, name: str, arguments: Any, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolCall(id, name, arguments)
        assert info.value.path == path

    def test_decoded_calls_need_no_name_rule(self) -> None:
        # Models send names that break the construction rule; a decode keeps them.
        message = cc.decode(
            b'{"role":"assistant","tool_calls":[{"id":"c","name":"mcp.fs-read","arguments":{}}]}'
        )
        assert isinstance(message, cc.AssistantMessage)
        assert message.tool_calls[0].name == "mcp.fs-read"

    def test_hash_and_equality_by_bytes(self) -> None:
        assert call() == call()
        assert hash(call()) == hash(call())
        assert call() != call(b'{"city":"Paris","days":3,"tags":["a"]}')


class TestArgumentHelpers:
    """Arguments are parsed only when asked, into the type asked for."""

    def test_arguments_dict(self) -> None:
        assert call().arguments_dict() == {"city": "Paris", "days": 3, "tags": ["a"]}

    def test_get_argument(self) -> None:
        assert call().get_argument("city") == "Paris"
        assert call().get_argument("days", int) == 3
        assert call().get_argument("tags", list[str]) == ["a"]

    def test_get_argument_missing(self) -> None:
        with pytest.raises(cc.MissingArgumentError) as info:
            call().get_argument("unit", str)
        assert isinstance(info.value, KeyError)
        assert info.value.key == "unit"
        assert str(info.value) == "no argument 'unit' - at `$.arguments`"

    def test_get_argument_wrong_type(self) -> None:
        with pytest.raises(cc.ArgumentTypeError) as info:
            call().get_argument("days", str)
        assert isinstance(info.value, ValueError)
        assert "Expected `str`, got `int`" in str(info.value)
        assert "Paris" not in str(info.value)

    def test_try_get_argument(self) -> None:
        assert call().try_get_argument("days", int) == 3
        assert call().try_get_argument("unit", str) is UNSET
        assert call().try_get_argument("days", str) is UNSET
        assert call().try_get_argument("city") == "Paris"

    def test_arguments_as_struct(self) -> None:
        class Weather(msgspec.Struct):
            city: str
            days: int = 1

        assert call().arguments_as(Weather) == Weather("Paris", 3)

    def test_arguments_as_dataclass_and_typeddict(self) -> None:
        @dataclasses.dataclass
        class Weather:
            city: str

        class WeatherDict(TypedDict):
            city: str
            unit: NotRequired[str]

        with pytest.raises(cc.ArgumentTypeError, match="missing required field `city`"):
            cc.ToolCall("c", "f", Raw(b"{}")).arguments_as(Weather)
        assert call(b'{"city":"Oslo"}').arguments_as(Weather) == Weather("Oslo")
        assert call(b'{"city":"Oslo"}').arguments_as(WeatherDict) == {"city": "Oslo"}

    def test_arguments_as_names_the_argument_path(self) -> None:
        class Weather(msgspec.Struct):
            days: str

        with pytest.raises(cc.ArgumentTypeError) as info:
            call().arguments_as(Weather)
        assert info.value.path == "$.arguments.days"


class TestToolCallFactory:
    """tool_call() checks everything in full and accepts any argument form."""

    @pytest.mark.parametrize(
        "arguments", [{"a": 1}, '{"a":1}', b'{"a":1}', Raw(b'{"a":1}'), bytearray(b'{"a":1}')]
    )
    def test_forms(self, arguments: Any) -> None:
        assert cc.tool_call("c", "f", arguments).arguments_dict() == {"a": 1}

    def test_no_arguments(self) -> None:
        assert bytes(cc.tool_call("c", "f").arguments) == b"{}"

    @pytest.mark.parametrize("name", ["", "a-b", "a.b", "é", "x" * 65, "a b"])
    def test_name_rule(self, name: str) -> None:
        with pytest.raises(cc.ValidationError, match=r"must match \^\[A-Za-z0-9_\]\{1,64\}\$"):
            cc.tool_call("c", name, {})

    @pytest.mark.parametrize(
        ("arguments", "rule"),
        [
            ('{"a": }', "arguments are not valid JSON"),
            ("[1, 2]", "arguments are valid JSON but not an object"),
            ("", "arguments are empty"),
            (b"\xff{}", "arguments are not valid UTF-8"),
        ],
    )
    def test_argument_rules(self, arguments: Any, rule: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.tool_call("c", "f", arguments)
        assert info.value.rule == rule

    def test_unencodable_mapping(self) -> None:
        with pytest.raises(cc.ValidationError, match="must hold only JSON values"):
            cc.tool_call("c", "f", {"a": object()})


class TestParseToolCall:
    """parse_tool_call() never raises on what a model sends."""

    def test_valid(self) -> None:
        assert cc.parse_tool_call("c", "f", '{"a": 1}') == cc.ToolCall("c", "f", Raw(b'{"a": 1}'))

    @pytest.mark.parametrize(
        ("text", "error"),
        [
            ('{"a": 1', "arguments are not valid JSON"),
            ("null", "arguments are valid JSON but not an object"),
            ("", "arguments are empty"),
        ],
    )
    def test_invalid_kept_verbatim(self, text: str, error: str) -> None:
        assert cc.parse_tool_call("c", "f", text) == cc.InvalidToolCall("c", "f", text, error)

    def test_missing_id_or_name(self) -> None:
        assert cc.parse_tool_call("", "f", "{}") == cc.InvalidToolCall(
            None, "f", "{}", "tool call has no id"
        )
        assert cc.parse_tool_call("c", "", b"{}") == cc.InvalidToolCall(
            "c", None, "{}", "tool call has no name"
        )


class TestToolResult:
    """Tool results build tool messages."""

    def test_constructors(self) -> None:
        assert cc.ToolResult.success("c", "ok") == cc.ToolResult("c", "ok", False)
        assert cc.ToolResult.error("c", "bad") == cc.ToolResult("c", "bad", True)

    def test_to_message(self) -> None:
        message = cc.ToolResult.error("c", "bad").to_message(id="m9")
        assert message == cc.ToolMessage("c", "bad", is_error=True, id="m9")

    def test_needs_an_id(self) -> None:
        with pytest.raises(cc.ValidationError, match="must not be empty"):
            cc.ToolResult("", "x")


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


class TestToolDefinition:
    """Definitions check name and schema; strict closes every object schema."""

    def test_valid(self) -> None:
        tool = cc.ToolDefinition("get_weather", "Weather.", SCHEMA)
        assert tool.strict

    @pytest.mark.parametrize("name", ["", "get-weather", "x" * 65])
    def test_name_rule(self, name: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolDefinition(name)
        assert info.value.path == "$.name"

    @pytest.mark.parametrize("params", [{}, {"type": "array"}, {"properties": {}}])
    def test_parameters_must_be_an_object_schema(self, params: dict[str, Any]) -> None:
        with pytest.raises(cc.ValidationError, match='"type": "object"'):
            cc.ToolDefinition("f", None, params)

    def test_strict_refuses_open_schemas(self) -> None:
        open_schema = {**SCHEMA, "additionalProperties": True}
        with pytest.raises(cc.ValidationError, match="must be false or absent when strict"):
            cc.ToolDefinition("f", None, open_schema)
        assert cc.ToolDefinition("f", None, open_schema, strict=False).parameters == open_schema

    def test_emitted_parameters_close_every_object(self) -> None:
        nested = {
            "type": "object",
            "properties": {
                "properties": {"type": "string"},
                "where": {"type": "object", "properties": {"city": {"type": "string"}}},
                "stops": {"type": "array", "items": {"type": "object", "properties": {}}},
                "either": {"anyOf": [{"type": "object"}, {"type": "null"}]},
            },
        }
        emitted = cc.ToolDefinition("f", None, nested).emitted_parameters()
        assert emitted["additionalProperties"] is False
        props = emitted["properties"]
        assert props["properties"] == {"type": "string"}  # a property, not the keyword
        assert props["where"]["additionalProperties"] is False
        assert props["stops"]["items"]["additionalProperties"] is False
        assert props["either"]["anyOf"][0]["additionalProperties"] is False
        assert "additionalProperties" not in nested  # the definition is unchanged

    def test_emitted_parameters_without_schema(self) -> None:
        assert cc.ToolDefinition("f").emitted_parameters() == {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
        }
        assert cc.ToolDefinition("f", None, SCHEMA, strict=False).emitted_parameters() == SCHEMA

    def test_long_description_is_reported_not_refused(self) -> None:
        assert cc.ToolDefinition("f", "x" * 1024).problems() == []
        tool = cc.ToolDefinition("f", "x" * 1025)
        assert tool.problems() == [
            cc.Problem("$.description", "longer than 1024 characters", "warning")
        ]


class Place(msgspec.Struct):
    """A place."""

    city: str
    country: str | None = None


class GetWeather(msgspec.Struct):
    """Current weather."""

    place: Place
    stops: list[Place] = []
    days: int = 1


class Node(msgspec.Struct):
    child: Node | None = None


class TestFromType:
    """Schemas generated from types have the right required fields and no $ref."""

    def test_struct(self) -> None:
        tool = cc.ToolDefinition.from_type(GetWeather, strict=False)
        assert tool.name == "GetWeather"
        assert tool.description == "Current weather."
        params = tool.parameters
        assert params is not None
        assert params["required"] == ["place"]
        assert params["properties"]["place"]["required"] == ["city"]
        assert params["properties"]["stops"]["items"]["properties"]["city"] == {"type": "string"}
        assert "$ref" not in msgspec.json.encode(params).decode()
        assert "title" not in params

    def test_dataclass_and_typeddict(self) -> None:
        @dataclasses.dataclass
        class Search:
            query: str
            limit: int = 10

        class Lookup(TypedDict):
            key: str
            title: NotRequired[str]

        search = cc.ToolDefinition.from_type(
            Search, name="search", description="Find.", strict=False
        )
        assert search.parameters is not None
        assert search.parameters["required"] == ["query"]
        lookup = cc.ToolDefinition.from_type(Lookup, name="lookup", strict=False)
        assert lookup.parameters is not None
        assert lookup.parameters["required"] == ["key"]
        assert set(lookup.parameters["properties"]) == {"key", "title"}  # "title" kept

    def test_refusals(self) -> None:
        with pytest.raises(cc.ValidationError, match="recursive"):
            cc.ToolDefinition.from_type(Node)
        with pytest.raises(cc.ValidationError, match='"type": "object"'):
            cc.ToolDefinition.from_type(int, name="n")
        with pytest.raises(cc.ValidationError, match="no JSON Schema"):
            cc.ToolDefinition.from_type(object, name="o")

    def test_unresolvable_annotations(self) -> None:
        class Local(msgspec.Struct):
            other: Unknown  # type: ignore[name-defined]  # noqa: F821

        with pytest.raises(cc.ValidationError, match=r"no JSON Schema \(NameError\)"):
            cc.ToolDefinition.from_type(Local, name="local")


class TestToolCallDelta:
    """Deltas carry optional pieces of a call."""

    def test_fields(self) -> None:
        delta = cc.ToolCallDelta(0, "c", "f", '{"a"')
        assert (delta.index, delta.id, delta.name, delta.arguments_delta) == (0, "c", "f", '{"a"')
        assert cc.ToolCallDelta(None).index is None


class MapArgs(msgspec.Struct):
    tags: dict[str, str]


class TestReviewRegressions:
    """Cases found in review."""

    def test_strict_refuses_open_objects_anywhere(self) -> None:
        nested = {
            "type": "object",
            "properties": {"o": {"type": "object", "additionalProperties": True}},
        }
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolDefinition("f", None, nested)
        assert info.value.path == "$.parameters.properties[...].additionalProperties"
        assert cc.ToolDefinition("f", None, nested, strict=False).emitted_parameters() == nested

    def test_map_types_need_strict_false(self) -> None:
        with pytest.raises(cc.ValidationError, match="a map type needs strict=False"):
            cc.ToolDefinition.from_type(MapArgs, name="m")
        loose = cc.ToolDefinition.from_type(MapArgs, name="m", strict=False)
        assert loose.emitted_parameters()["properties"]["tags"]["additionalProperties"] == {
            "type": "string"
        }

    def test_any_mapping_and_no_nan(self) -> None:
        import types

        assert cc.tool_call("c", "f", types.MappingProxyType({"a": 1})).arguments_dict() == {"a": 1}
        for bad in ({"x": float("nan")}, {"x": [float("inf")]}):
            with pytest.raises(cc.ValidationError, match="NaN or infinity"):
                cc.tool_call("c", "f", bad)
        with pytest.raises(cc.ValidationError, match="not valid UTF-8"):
            cc.tool_call("c", "f", '{"a":"\ud800"}')
        assert cc.parse_tool_call("c", "f", "\ud800").error == "arguments are not valid UTF-8"  # type: ignore[union-attr]

    def test_argument_types_beyond_classes(self) -> None:
        from typing import Literal

        call = cc.tool_call("c", "f", {"n": 1, "unit": "C"})
        assert call.get_argument("n", int | None) == 1
        assert call.try_get_argument("unit", Literal["C", "F"]) == "C"
        assert call.arguments_as(dict[str, int | str]) == {"n": 1, "unit": "C"}
