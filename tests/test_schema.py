from __future__ import annotations

from typing import Any, ClassVar

import msgspec
import pytest

import chatcodec as cc
from chatcodec._schema import (
    FrozenDict,
    FrozenList,
    any_open,
    close_objects,
    freeze,
    freeze_schema,
    map_subschemas,
    open_objects,
    strict_form,
    thaw,
    unsupported,
)


class TestMapSubschemas:
    """Only keywords that hold schemas are walked; data is left alone."""

    def test_keywords(self) -> None:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"title": {"type": "string"}, "items": {"type": "array"}},
            "items": {"type": "string"},
            "anyOf": [{"type": "null"}],
            "default": {"type": "object"},
            "enum": [{"type": "object"}],
            "additionalProperties": {"type": "integer"},
        }
        seen: list[Any] = []

        def visit(sub: Any) -> Any:
            seen.append(sub)
            return sub

        map_subschemas(schema, visit)
        assert seen == [
            {"type": "string"},
            {"type": "array"},
            {"type": "string"},
            {"type": "null"},
            {"type": "integer"},
        ]

    def test_close_objects_leaves_data_alone(self) -> None:
        schema = {
            "type": "object",
            "properties": {"opts": {"type": ["object", "null"], "properties": {}}},
            "default": {"type": "object"},
            "examples": [{"properties": {}}],
        }
        closed = close_objects(schema)
        assert closed["additionalProperties"] is False
        assert closed["properties"]["opts"]["additionalProperties"] is False
        assert closed["default"] == {"type": "object"}
        assert closed["examples"] == [{"properties": {}}]
        assert close_objects(True) is True


class TestOpenObjects:
    """The quick yes/no agrees with the full list of open places."""

    @pytest.mark.parametrize(
        "schema",
        [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "additionalProperties": True},
            {"type": "object", "additionalProperties": False},
            {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}},
            {"anyOf": [{"type": "object"}, {"type": "object", "additionalProperties": True}]},
            {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "x"}}},
            {"$defs": {"D": {"additionalProperties": True}}},
            "not a schema",
        ],
    )
    def test_any_open_matches_open_objects(self, schema: Any) -> None:
        assert any_open(schema) == bool(open_objects(schema))


class TestFreeze:
    """Frozen JSON values are dicts and lists that refuse every change."""

    VALUE: ClassVar[dict[str, Any]] = {"a": [1, {"b": [2.5, None, True]}], "c": {"d": "e"}}

    def test_equal_and_encoded_alike(self) -> None:
        frozen = freeze(self.VALUE)
        assert frozen == self.VALUE
        assert type(frozen) is FrozenDict
        assert type(frozen["a"]) is FrozenList
        assert msgspec.json.encode(frozen) == msgspec.json.encode(self.VALUE)
        assert msgspec.msgpack.encode(frozen) == msgspec.msgpack.encode(self.VALUE)
        assert hash(frozen) == hash(freeze(self.VALUE))

    @pytest.mark.parametrize(
        "change",
        [
            lambda v: v.__setitem__("a", 1),
            lambda v: v.__delitem__("a"),
            lambda v: v.update(x=1),
            lambda v: v.pop("a"),
            lambda v: v.popitem(),
            lambda v: v.clear(),
            lambda v: v.setdefault("x", 1),
            lambda v: v["a"].append(3),
            lambda v: v["a"].extend([3]),
            lambda v: v["a"].__setitem__(0, 3),
            lambda v: v["a"].sort(),
            lambda v: v["a"][1]["b"].pop(),
            lambda v: v["c"].__ior__({"x": 1}),
        ],
    )
    def test_refuses_changes(self, change: Any) -> None:
        frozen = freeze(self.VALUE)
        with pytest.raises(TypeError, match="cannot be changed"):
            change(frozen)
        assert frozen == self.VALUE

    def test_thaw_gives_plain_copies(self) -> None:
        plain = thaw(freeze(self.VALUE))
        assert plain == self.VALUE
        assert type(plain) is dict
        assert type(plain["a"]) is list
        assert type(plain["c"]) is dict
        plain["a"].append(3)
        assert self.VALUE["a"] == [1, {"b": [2.5, None, True]}]

    def test_equal_schemas_share_one_frozen_copy(self) -> None:
        first = freeze_schema({"type": "object", "required": ["a"]})
        second = freeze_schema({"type": "object", "required": ["a"]})
        assert first is second
        assert freeze_schema({"type": "object", "required": ["b"]}) is not first


class TestStrictForm:
    """Every property required; optional ones also take null, their default described."""

    def test_forms_of_nullable(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "integer", "default": 1},
                "c": {"type": ["string", "integer"]},
                "d": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "e": {"enum": ["x", "y"], "default": "x", "description": "Which."},
                "f": {"$ref": "#/$defs/X", "description": "An X."},
                "g": {"type": "null"},
            },
            "required": ["a"],
        }
        props = strict_form(schema)["properties"]
        assert strict_form(schema)["required"] == ["a", "b", "c", "d", "e", "f", "g"]
        assert props["a"] == {"type": "string"}
        assert props["b"] == {"type": ["integer", "null"], "description": "Default: 1."}
        assert props["c"] == {"type": ["string", "integer", "null"]}
        assert props["d"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
        assert props["e"] == {"enum": ["x", "y", None], "description": 'Which. (Default: "x".)'}
        assert props["f"] == {
            "anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}],
            "description": "An X.",
        }
        assert props["g"] == {"type": "null"}
        assert schema["required"] == ["a"]  # the input is not changed

    def test_nested(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"n": {"type": "integer"}}},
                }
            },
        }
        out = strict_form(schema)
        assert out["required"] == ["items"]
        assert out["properties"]["items"]["items"]["required"] == ["n"]


class TestUnsupported:
    """Keywords a family cannot express are found at their paths."""

    SCHEMA: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 3, "default": "x"}},
        "allOf": [{"minimum": 1}],
    }

    def test_families(self) -> None:
        assert unsupported(self.SCHEMA, "gemini", False) == [
            ("$.parameters.allOf", "a keyword gemini's schema subset does not have"),
        ]
        assert [path for path, _ in unsupported(self.SCHEMA, "openai", True)] == [
            "$.parameters.properties.city.maxLength",
            "$.parameters.properties.city.default",
            "$.parameters.allOf",
        ]
        assert [path for path, _ in unsupported(self.SCHEMA, "anthropic", True)] == [
            "$.parameters.properties.city.maxLength",
            "$.parameters.allOf[0].minimum",
        ]
        assert unsupported(self.SCHEMA, "openai", False) == []
        assert unsupported(self.SCHEMA, "ollama", True) == []


class TestMetaSchemaStructure:
    """A tool's schema has the structure the JSON Schema meta-schema gives, keyword by keyword."""

    @pytest.mark.parametrize(
        ("parameters", "path"),
        [
            ({"type": "object", "properties": 5}, "$.parameters.properties"),
            ({"type": "object", "required": "a"}, "$.parameters.required"),
            ({"type": "object", "properties": {"a": 5}}, "$.parameters.properties[...]"),
            (
                {"type": "object", "properties": {"a": {"type": "text"}}},
                "$.parameters.properties[...].type",
            ),
            # A type that is no JSON value a set holds (a mutation search's find)
            (
                {"type": "object", "properties": {"a": {"type": {"type": "string"}}}},
                "$.parameters.properties[...].type",
            ),
            (
                {"type": "object", "properties": {"a": {"type": [[]]}}},
                "$.parameters.properties[...].type",
            ),
            ({"type": "object", "anyOf": []}, "$.parameters.anyOf"),
            ({"type": "object", "maxProperties": -1}, "$.parameters.maxProperties"),
            ({"type": "object", "description": 5}, "$.parameters.description"),
            (
                {"type": "object", "properties": {"a": {"type": "array", "items": 5}}},
                "$.parameters.properties[...].items",
            ),
        ],
    )
    def test_refused(self, parameters: dict[str, Any], path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.ToolDefinition("f", parameters=parameters, strict=False)
        assert info.value.path == path

    def test_accepted(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "enum": ["x", None], "maxLength": 3},
                "b": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
                "c": True,
            },
            "required": ["a"],
            "x-vendor": {"anything": 1},
        }
        assert cc.ToolDefinition("f", parameters=schema, strict=False).parameters == schema
