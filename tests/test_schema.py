from __future__ import annotations

from typing import Any

import pytest

from chatcodec._schema import any_open, close_objects, map_subschemas, open_objects


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
