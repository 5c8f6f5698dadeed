from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

import msgspec
import pytest
from msgspec import UNSET, Raw

import chatcodec as cc
from chatcodec import providers


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


SECRET = 123456789
# Typed Any: these tests pass what the annotations forbid.
NUMBER: Any = SECRET
NOTHING: Any = None


def loose(value: object) -> Any:
    return value


class TestTypesAtConstruction:
    """Tool records refuse values of the wrong type where they are built."""

    @pytest.mark.parametrize(
        ("build", "path", "rule"),
        [
            (lambda: cc.ToolCall(NUMBER, "f", Raw(b"{}")), "$.id", "must be a string"),
            (lambda: cc.ToolCall("c1", NUMBER, Raw(b"{}")), "$.name", "must be a string"),
            (
                lambda: cc.ToolCall("c1", "f", Raw(b"{}"), approval=loose("bogus")),
                "$.approval",
                "must be pending, approved, denied or None",
            ),
            (lambda: cc.ToolResult("c1", NOTHING), "$.result", "must be a string"),
            (lambda: cc.ToolResult(NUMBER, "r"), "$.tool_call_id", "must be a string"),
            (
                lambda: cc.ToolResult("c1", "r", is_error=loose(1)),
                "$.is_error",
                "must be true or false",
            ),
            (lambda: cc.InvalidToolCall(arguments=NUMBER), "$.arguments", "must be a string"),
            (lambda: cc.InvalidToolCall(id=NUMBER), "$.id", "must be a string"),
            (lambda: cc.ToolDefinition("tool", ""), "$.description", "must not be empty"),
            (lambda: cc.ToolDefinition("tool", NUMBER), "$.description", "must be a string"),
            (
                lambda: cc.ToolDefinition("tool", strict=NOTHING),
                "$.strict",
                "must be true or false",
            ),
        ],
    )
    def test_refused(self, build: Any, path: str, rule: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            build()
        assert (info.value.path, info.value.rule) == (path, rule)
        assert str(SECRET) not in str(info.value)

    def test_allowed(self) -> None:
        assert cc.ToolDefinition("tool").description is None
        assert cc.ToolCall("c1", "f", Raw(b"{}"), approval="approved").approval == "approved"
        assert cc.ToolResult("c1", "").result == ""

    def test_decoded_approval_is_checked_too(self) -> None:
        data = (
            b'{"role":"assistant","tool_calls":'
            b'[{"id":"c","name":"f","arguments":{},"approval":"x"}]}'
        )
        with pytest.raises(cc.ValidationError, match="approval"):
            cc.decode(data)


class TestToolDefinitionIsImmutable:
    """What was checked is what is sent: the schema cannot change after the check."""

    PARAMS: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "tags": {"type": "array"}},
        "required": ["city"],
    }

    def test_schema_refuses_changes(self) -> None:
        tool = cc.ToolDefinition("f", "Find.", self.PARAMS)
        params = tool.parameters
        assert params is not None
        with pytest.raises(TypeError):
            params["type"] = "array"
        with pytest.raises(TypeError):
            params["properties"]["city"]["additionalProperties"] = True
        with pytest.raises(TypeError):
            params["required"].append("tags")
        with pytest.raises(TypeError):
            params.update({"type": "array"})
        with pytest.raises(TypeError):
            del params["required"]
        assert params == self.PARAMS

    def test_callers_dict_is_copied(self) -> None:
        given = json.loads(json.dumps(self.PARAMS))
        tool = cc.ToolDefinition("f", "Find.", given)
        given["properties"]["city"]["additionalProperties"] = True
        given["required"].append("tags")
        assert tool.parameters == self.PARAMS
        assert b'additionalProperties":true' not in cc.encode(tool)

    def test_hashable_and_equal(self) -> None:
        a = cc.ToolDefinition("f", "Find.", self.PARAMS)
        b = cc.ToolDefinition("f", "Find.", json.loads(json.dumps(self.PARAMS)))
        assert a == b
        assert hash(a) == hash(b)
        assert len({a, b, cc.ToolDefinition("g", "Find.", self.PARAMS)}) == 2

    @pytest.mark.parametrize("format", ["json", "msgpack"])
    def test_round_trip_and_pickle(self, format: cc.Format) -> None:
        tool = cc.ToolDefinition("f", "Find.", self.PARAMS)
        back = cc.decode(cc.encode(tool, format=format), type=cc.ToolDefinition, format=format)
        assert back == tool
        assert hash(back) == hash(tool)
        with pytest.raises(TypeError):
            back.parameters["type"] = "array"  # type: ignore[index]
        assert pickle.loads(pickle.dumps(tool)) == tool
        copied = copy.deepcopy(tool)
        assert copied == tool

    def test_emitted_schema_is_a_plain_copy(self) -> None:
        tool = cc.ToolDefinition("f", "Find.", self.PARAMS, strict=False)
        emitted = tool.emitted_parameters()
        assert type(emitted) is dict
        assert type(emitted["required"]) is list
        emitted["required"].append("tags")
        assert tool.parameters == self.PARAMS


class Forecast(msgspec.Struct):
    """The forecast for a city."""

    city: str
    days: int = 1
    unit: Literal["C", "F"] = "C"
    note: str | None = None


class TestStrictSchemas:
    """from_type with strict gives schemas that strict modes accept."""

    def test_every_property_required_optional_ones_nullable(self) -> None:
        tool = cc.ToolDefinition.from_type(Forecast, name="get_forecast")
        params = tool.parameters
        assert params is not None
        assert params["required"] == ["city", "days", "unit", "note"]
        props = params["properties"]
        assert props["city"] == {"type": "string"}
        assert props["days"] == {"type": ["integer", "null"], "description": "Default: 1."}
        assert props["unit"]["enum"] == ["C", "F", None]
        assert "default" not in msgspec.json.encode(params).decode()
        assert {"type": "null"} in props["note"]["anyOf"]

    def test_openai_preflight_accepts_it(self) -> None:
        tool = cc.ToolDefinition.from_type(Forecast, name="get_forecast")
        request = cc.Request((cc.user("Oslo?"),), model="gpt-4o", tools=(tool,))
        assert providers.get("openai").check_request(request) == []
        loose = cc.ToolDefinition(
            "get_forecast", None, cc.ToolDefinition.from_type(Forecast, strict=False).parameters
        )
        request = cc.Request((cc.user("Oslo?"),), model="gpt-4o", tools=(loose,))
        rules = [p.rule for p in providers.get("openai").check_request(request)]
        assert "strict tools must list every property in required" in rules

    def test_nested_objects_too(self) -> None:
        tool = cc.ToolDefinition.from_type(GetWeather)
        params = tool.parameters
        assert params is not None
        place = params["properties"]["place"]
        assert place["required"] == ["city", "country"]
        assert params["properties"]["stops"]["items"]["required"] == ["city", "country"]
        request = cc.Request((cc.user("x"),), model="gpt-4o", tools=(tool,))
        assert providers.get("openai").check_request(request) == []

    def test_null_arguments_read_as_absent(self) -> None:
        call = cc.tool_call("c1", "get_forecast", {"city": "Oslo", "days": None, "unit": None})
        assert call.arguments_as(Forecast) == Forecast("Oslo")
        kept = cc.tool_call("c1", "get_forecast", {"city": "Oslo", "note": None})
        assert kept.arguments_as(Forecast) == Forecast("Oslo", note=None)
        wrong = cc.tool_call("c1", "get_forecast", {"city": None})
        with pytest.raises(cc.ArgumentTypeError):
            wrong.arguments_as(Forecast)
        with pytest.raises(cc.ArgumentTypeError):
            cc.tool_call("c1", "f", {"city": 5, "days": None}).arguments_as(Forecast)


def forecast(city: str, days: int = 1, *, unit: str = "C") -> str:
    """Forecast for a city.

    Looks a few days ahead.

    Parameters
    ----------
    city : str
        The city's
        name.
    days, unit
        How far ahead, and in which unit.

    Returns
    -------
    str
        Not a parameter.
    """
    return city


def google(query: str, limit: int = 10, *args: Any, **kwargs: Any) -> list[str]:
    """Search the index.

    Args:
        query (str): What to look for,
            in any language.
        limit: How many results.

    Returns:
        limit: not a parameter.
    """
    return []


class TestFromFunction:
    """from_function reads a function's signature and its docstring."""

    def test_numpydoc(self) -> None:
        tool = cc.ToolDefinition.from_function(forecast, strict=False)
        assert tool.name == "forecast"
        assert tool.description == "Forecast for a city.\n\nLooks a few days ahead."
        params = tool.parameters
        assert params is not None
        assert params["required"] == ["city"]
        assert params["properties"]["city"] == {"description": "The city's name.", "type": "string"}
        assert params["properties"]["days"]["description"] == "How far ahead, and in which unit."
        assert params["properties"]["unit"]["default"] == "C"

    def test_google(self) -> None:
        tool = cc.ToolDefinition.from_function(google)
        params = tool.parameters
        assert params is not None
        assert tool.description == "Search the index."
        assert set(params["properties"]) == {"query", "limit"}  # *args, **kwargs left out
        assert params["properties"]["query"]["description"] == "What to look for, in any language."
        assert params["properties"]["limit"]["description"] == "How many results. (Default: 10.)"
        assert params["required"] == ["query", "limit"]

    def test_no_docstring_and_no_annotations(self) -> None:
        def f(a, b=None):  # type: ignore[no-untyped-def]
            return a

        tool = cc.ToolDefinition.from_function(f, name="lookup", description="Look up.")
        assert (tool.name, tool.description) == ("lookup", "Look up.")
        assert tool.parameters is not None
        assert set(tool.parameters["properties"]) == {"a", "b"}

    def test_methods_leave_self_out(self) -> None:
        class Tools:
            def weather(self, city: str) -> str:
                """Weather now."""
                return city

        tool = cc.ToolDefinition.from_function(Tools().weather)
        assert tool.parameters is not None
        assert list(tool.parameters["properties"]) == ["city"]
        unbound = cc.ToolDefinition.from_function(Tools.weather)
        assert unbound.parameters is not None
        assert list(unbound.parameters["properties"]) == ["city"]

    def test_mutable_default(self) -> None:
        def f(tags: list[str] = ["a"]) -> None:  # noqa: B006
            """Tag."""

        tool = cc.ToolDefinition.from_function(f, strict=False)
        assert tool.parameters is not None
        assert tool.parameters["properties"]["tags"]["type"] == "array"

    def test_refusals(self) -> None:
        def positional(a: int, /) -> None:
            """Positional."""

        with pytest.raises(cc.ValidationError, match="positional-only"):
            cc.ToolDefinition.from_function(positional)

        def unknown(a: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
            """Unknown."""

        with pytest.raises(cc.ValidationError, match="no readable signature"):
            cc.ToolDefinition.from_function(unknown)

    def test_arguments_decode_into_the_function(self) -> None:
        tool = cc.ToolDefinition.from_function(forecast)
        call = cc.tool_call("c1", tool.name, {"city": "Oslo", "days": None, "unit": "F"})
        assert forecast(**call.arguments_dict()) == "Oslo"


class TestFamilySchemaProblems:
    """problems(family) names what a family's schema dialect cannot express."""

    PARAMS: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]+$", "minLength": 2},
            "n": {"type": "integer", "minimum": 1, "const": 3},
        },
        "required": ["code", "n"],
    }

    def test_gemini(self) -> None:
        tool = cc.ToolDefinition("f", "F.", self.PARAMS, strict=False)
        paths = [p.path for p in tool.problems("gemini")]
        assert paths == ["$.parameters.properties.n.const"]
        request = cc.Request((cc.user("x"),), model="gemini-2.5-flash", tools=(tool,))
        found = providers.get("gemini").check_request(request)
        assert [(p.path, p.severity) for p in found] == [
            ("$.tools[0].parameters.properties.n.const", "warning")
        ]

    def test_openai_strict_only(self) -> None:
        strict = cc.ToolDefinition("f", "F.", self.PARAMS)
        assert [p.path for p in strict.problems("openai")] == [
            "$.parameters.properties.code.minLength"
        ]
        assert cc.ToolDefinition("f", "F.", self.PARAMS, strict=False).problems("openai") == []

    def test_anthropic_strict(self) -> None:
        strict = cc.ToolDefinition("f", "F.", self.PARAMS)
        assert [p.path for p in strict.problems("anthropic")] == [
            "$.parameters.properties.code.minLength",
            "$.parameters.properties.n.minimum",
        ]
        request = cc.Request((cc.user("x"),), model="claude", max_tokens=10, tools=(strict,))
        paths = [p.path for p in providers.get("anthropic").check_request(request)]
        assert "$.tools[0].parameters.properties.n.minimum" in paths

    def test_generated_schemas_fit_every_family(self) -> None:
        for tool in (
            cc.ToolDefinition.from_type(Forecast),
            cc.ToolDefinition.from_function(forecast),
        ):
            for family in ("openai", "anthropic", "gemini"):
                assert tool.problems(family) == [], (tool.name, family)


# The wire's "description": "" for each family (pydantic-ai sends it).
EMPTY_DESCRIPTION = {
    "openai": {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "f", "description": "", "parameters": {"type": "object"}},
            }
        ],
    },
    "anthropic": {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "f", "description": "", "input_schema": {"type": "object"}}],
    },
    "gemini": {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "f", "description": "", "parametersJsonSchema": {"type": "object"}}
                ]
            }
        ],
    },
    "ollama": {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "f", "description": "", "parameters": {"type": "object"}},
            }
        ],
    },
}


class TestEmptyDescriptionOnTheWire:
    """A provider's "" description decodes as absent and is written back as it came."""

    @pytest.mark.parametrize("family", sorted(EMPTY_DESCRIPTION))
    def test_round_trip(self, family: str) -> None:
        codec = providers.get(family)
        body = json.dumps(EMPTY_DESCRIPTION[family]).encode()
        request = codec.decode_request(body)
        (tool,) = request.tools
        assert isinstance(tool, cc.ToolDefinition)
        assert tool.description is None
        assert json.loads(codec.encode_request(request)) == EMPTY_DESCRIPTION[family]

    @pytest.mark.parametrize("target", ["anthropic", "gemini", "ollama"])
    def test_converted_as_a_tool(self, target: str) -> None:
        body = json.dumps(EMPTY_DESCRIPTION["openai"]).encode()
        out, report = cc.convert(body, source="openai", target=target)
        assert not report.paths
        assert b'"f"' in out


class TestPlainArguments:
    """A call's arguments as bytes and as text, for code that takes either."""

    def test_bytes_and_text(self) -> None:
        call = cc.ToolCall("c1", "f", msgspec.Raw(b'{"city": "Z\xc3\xbcrich"}'))
        assert call.arguments_bytes == b'{"city": "Z\xc3\xbcrich"}'
        assert call.arguments_text == '{"city": "Zürich"}'
        assert json.loads(call.arguments_text) == {"city": "Zürich"}
        assert json.loads(call.arguments_bytes) == call.arguments_dict()


class TestResponseText:
    """A response's answer text, empty when there is none."""

    def test_text(self) -> None:
        answer = cc.Response((cc.Choice(cc.assistant("Done.")),))
        assert answer.text == "Done."
        assert cc.Response().text == ""
        calls_only = cc.Response(
            (cc.Choice(cc.assistant(tool_calls=[cc.tool_call("c", "f", {})])),)
        )
        assert calls_only.text == ""
