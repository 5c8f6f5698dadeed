"""Gemini's schema subset: what a schema from another family becomes, and what is reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec._paths import key_step
from chatcodec.providers.gemini._subset import FORCED_CYCLE, RECURSIVE, _plain, fit, fits
from corpus_root import CORPUS, HAVE_CORPUS, NO_CORPUS

PATH = "$.tools[0].parameters"


def run(schema: dict[str, Any], field: str = "parametersJsonSchema") -> tuple[Any, list[Any]]:
    lost: list[tuple[str, str]] = []
    out = fit(schema, field, PATH, lambda at, rule: lost.append((at, rule)))
    return out, lost


def openai_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": schema}}],
    }


def gemini_declaration(out: bytes) -> dict[str, Any]:
    body = json.loads(out)
    declaration: dict[str, Any] = body["tools"][0]["functionDeclarations"][0]
    return declaration


RECURSIVE_SCHEMA = {
    "type": "object",
    "properties": {"root": {"$ref": "#/$defs/Node"}},
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}},
            "required": ["name"],
        }
    },
}


class TestJsonFields:
    """parametersJsonSchema and responseJsonSchema: references kept, the rest cut."""

    def test_const_is_an_enum_of_its_value(self) -> None:
        out, lost = run({"type": "object", "properties": {"kind": {"const": "cat"}}})
        assert out["properties"]["kind"] == {"enum": ["cat"]}
        assert lost == []

    def test_a_number_const_too(self) -> None:
        out, lost = run({"type": "object", "properties": {"n": {"type": "integer", "const": 3}}})
        assert out["properties"]["n"] == {"type": "integer", "enum": [3]}
        assert lost == []

    def test_a_const_outside_its_enum_is_reported(self) -> None:
        schema = {"type": "object", "properties": {"k": {"const": "a", "enum": ["b"]}}}
        out, lost = run(schema)
        assert lost == [(f"{PATH}.properties.k.const", "a const outside its own enum")]
        assert out["properties"]["k"] == {"enum": ["b"]}

    def test_an_object_const_is_reported(self) -> None:
        out, lost = run({"type": "object", "properties": {"k": {"const": {"a": 1}}}})
        assert [at for at, _ in lost] == [f"{PATH}.properties.k.const"]
        assert out["properties"]["k"] == {}

    def test_root_defs_references_are_kept(self) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "string"}},
        }
        out, lost = run(schema)
        assert out == schema
        assert lost == []

    def test_a_reference_into_nested_defs_is_inlined(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "outer": {
                    "type": "object",
                    "$defs": {"Inner": {"type": "integer", "minimum": 1}},
                    "properties": {"x": {"$ref": "#/properties/outer/$defs/Inner"}},
                }
            },
        }
        out, lost = run(schema)
        assert out == {
            "type": "object",
            "properties": {
                "outer": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 1}}}
            },
        }
        assert lost == []

    def test_draft7_definitions_are_inlined(self) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A"}},
            "definitions": {"A": {"type": "string"}},
        }
        out, lost = run(schema)
        assert out == {"type": "object", "properties": {"a": {"type": "string"}}}
        assert lost == []

    def test_a_reference_with_siblings_is_inlined(self) -> None:
        # Gemini takes no keyword beside a $ref but $-ones.
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "an a"}},
            "$defs": {"A": {"type": "string"}},
        }
        out, lost = run(schema)
        assert out["properties"]["a"] == {"type": "string", "description": "an a"}
        assert lost == []

    def test_a_cycle_through_optional_properties_is_kept(self) -> None:
        out, lost = run(RECURSIVE_SCHEMA)
        assert out == RECURSIVE_SCHEMA
        assert lost == []

    def test_an_inlined_copy_keeps_its_references_to_root_defs(self) -> None:
        schema = {
            "type": "object",
            "properties": {"tree": {"$ref": "#/definitions/Tree"}},
            "definitions": {"Tree": {"type": "object", "properties": {
                "root": {"$ref": "#/$defs/Node"}}}},
            "$defs": RECURSIVE_SCHEMA["$defs"],
        }  # fmt: skip
        out, lost = run(schema)
        assert out["properties"]["tree"] == {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
        }
        assert out["$defs"] == RECURSIVE_SCHEMA["$defs"]
        assert lost == []

    def test_a_cycle_through_required_properties_is_reported(self) -> None:
        schema = json.loads(json.dumps(RECURSIVE_SCHEMA))
        schema["$defs"]["Node"]["required"] = ["name", "child"]
        out, lost = run(schema)
        assert out == schema  # Gemini unrolls what it can; the report says it cannot
        child = f"{PATH}.$defs{key_step('Node')}.properties{key_step('child')}.$ref"
        assert lost == [(child, FORCED_CYCLE)]

    def test_a_reference_to_nothing_is_reported(self) -> None:
        out, lost = run({"type": "object", "properties": {"a": {"$ref": "#/$defs/None"}}})
        assert [rule for _, rule in lost] == ["a reference to nothing in the schema"]
        assert out["properties"]["a"] == {}

    def test_unsupported_keywords_are_cut_and_reported(self) -> None:
        schema = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "n": {"type": "number", "multipleOf": 5, "minimum": 0},
                "both": {"allOf": [{"type": "string"}]},
            },
        }
        out, lost = run(schema)
        assert out == {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "n": {"type": "number", "minimum": 0},
                "both": {},
            },
        }
        rule = "a keyword gemini's parametersJsonSchema does not take"
        assert lost == [
            (f"{PATH}.$schema", rule),
            (f"{PATH}.properties.tags.uniqueItems", rule),
            (f"{PATH}.properties.n.multipleOf", rule),
            (f"{PATH}.properties{key_step('both')}.allOf", rule),
        ]

    def test_the_input_is_not_changed(self) -> None:
        schema = {"type": "object", "properties": {"k": {"const": "a"}}}
        run(schema)
        assert schema == {"type": "object", "properties": {"k": {"const": "a"}}}

    def test_nested_defs_are_not_plain(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "object", "$defs": {}}}}
        assert not fits(schema)
        assert run(schema)[0] == {"type": "object", "properties": {"a": {"type": "object"}}}

    def test_fits(self) -> None:
        assert fits({"type": "object", "properties": {"a": {"type": "string"}}})
        assert fits(RECURSIVE_SCHEMA)
        assert not fits({"type": "object", "properties": {"a": {"const": "x"}}})


class TestSchemaFields:
    """parameters and responseSchema (Google's Schema): no references, one type."""

    def test_references_are_inlined(self) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}},
                      "C": {"type": "string"}},
        }  # fmt: skip
        out, lost = run(schema, "parameters")
        inner = {"type": "object", "properties": {"c": {"type": "string"}}}
        assert out == {"type": "object", "properties": {"a": inner, "b": inner}}
        assert lost == []

    def test_a_recursive_reference_cannot_be_inlined(self) -> None:
        out, lost = run(RECURSIVE_SCHEMA, "parameters")
        child = f"{PATH}.properties{key_step('root')}.properties{key_step('child')}.$ref"
        assert lost == [(child, RECURSIVE)]
        assert out["properties"]["root"]["properties"]["child"] == {}

    def test_a_type_list_is_nullable(self) -> None:
        out, lost = run({"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
                        "parameters")  # fmt: skip
        assert out["properties"]["a"] == {"type": "string", "nullable": True}
        assert lost == []

    def test_const_has_its_type(self) -> None:
        out, _ = run({"type": "object", "properties": {"a": {"const": "x"}}}, "parameters")
        assert out["properties"]["a"] == {"enum": ["x"], "type": "string"}

    def test_closed_objects_are_reported(self) -> None:
        schema = {"type": "object", "properties": {}, "additionalProperties": False}
        out, lost = run(schema, "responseSchema")
        assert out == {"type": "object", "properties": {}}
        assert lost == [(f"{PATH}.additionalProperties",
                         "a keyword gemini's responseSchema does not take")]  # fmt: skip


class TestConvert:
    """convert() cuts another family's schema; Gemini's own goes back as it came."""

    SCHEMA: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"kind": {"const": "cat"}, "tags": {"type": "array", "uniqueItems": True}},
    }

    def test_openai_to_gemini(self) -> None:
        out, report = cc.convert(openai_body(self.SCHEMA), source="openai", target="gemini")
        decl = gemini_declaration(out)
        assert decl["parametersJsonSchema"] == {
            "type": "object",
            "properties": {"kind": {"enum": ["cat"]}, "tags": {"type": "array"}},
        }
        assert report.paths == ["$.tools[0].parameters.properties.tags.uniqueItems"]
        assert report.problems == ()  # the preflight's warning is gone with the keyword

    def test_a_gemini_1_model_gets_the_schema_field(self) -> None:
        out, report = cc.convert(
            openai_body(self.SCHEMA), source="openai", target="gemini", model="gemini-1.5-pro"
        )
        decl = gemini_declaration(out)
        assert decl["parameters"] == {
            "type": "OBJECT",
            "properties": {"kind": {"enum": ["cat"], "type": "STRING"}, "tags": {"type": "ARRAY"}},
        }
        assert report.paths == ["$.tools[0].parameters.properties.tags.uniqueItems"]

    def test_the_answer_schema_too(self) -> None:
        body = {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Hi"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "a",
                                "schema": self.SCHEMA}},
        }  # fmt: skip
        out, report = cc.convert(body, source="openai", target="gemini")
        config = json.loads(out)["generationConfig"]
        assert config["responseJsonSchema"]["properties"]["kind"] == {"enum": ["cat"]}
        assert "$.response_format.schema.properties.tags.uniqueItems" in report.paths

    def test_gemini_to_gemini_is_unchanged(self) -> None:
        body = {
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f",
                       "parametersJsonSchema": self.SCHEMA}]}],
        }  # fmt: skip
        out, report = cc.convert(body, source="gemini", target="gemini")
        assert json.loads(out) == body
        assert report.losses == ()


def _recorded_schemas() -> list[Any]:
    if not HAVE_CORPUS:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_CORPUS))]
    found: list[Any] = []
    for family in ("openai", "anthropic"):
        for path in sorted((CORPUS / family / "request").glob("*.json")):
            try:
                body = json.loads(path.read_bytes())
            except ValueError:
                continue
            tools = body.get("tools") if isinstance(body, dict) else None
            for tool in tools if isinstance(tools, list) else ():
                if not isinstance(tool, dict):
                    continue
                schema = tool.get("input_schema")
                function = tool.get("function")
                if isinstance(function, dict):
                    schema = function.get("parameters")
                if isinstance(schema, dict) and schema.get("type") == "object":
                    found.append(pytest.param(schema, id=f"{family}/{Path(path).stem[:60]}"))
    return found


@pytest.mark.parametrize("schema", _recorded_schemas())
@pytest.mark.parametrize("field", ["parametersJsonSchema", "parameters"])
def test_recorded_tool_schemas(schema: dict[str, Any], field: str) -> None:
    """Every recorded OpenAI and Anthropic tool schema: cut to a subset, reporting each cut."""
    out, lost = run(schema, field)
    takes = fit.__globals__["GEMINI_KEYWORDS"] if field == "parametersJsonSchema" else (
        fit.__globals__["_SCHEMA_TAKES"])  # fmt: skip

    def keys(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in ("properties", "$defs"):
                    assert key in takes, key
                    keys(value)
                else:
                    for sub in value.values():
                        keys(sub)
        elif isinstance(node, list):
            for item in node:
                keys(item)

    keys(out)
    if field == "parametersJsonSchema" and _plain(schema):  # the walk skipped says the same
        assert (out, lost) == (schema, [])
    for at, rule in lost:
        assert at.startswith(PATH)
        assert rule
    if not lost:
        jsonschema.Draft202012Validator.check_schema(out)


# A small grammar of schemas: what Gemini takes, const, and references.
_LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "boolean"},
        {"const": "a"},
        {"const": 2},
        {"enum": ["a", "b"]},
        {"$ref": "#/$defs/Word"},
        {"$ref": "#/definitions/Count"},
    ]
)
_SCHEMAS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, inner),
        st.builds(lambda options: {"anyOf": options}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(
            lambda props: {"type": "object", "properties": props, "required": sorted(props)[:1]},
            st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
        ),
    ),
    max_leaves=8,
)
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "z"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(_SCHEMAS, _VALUES, st.sampled_from(["parametersJsonSchema", "parameters"]))
def test_what_is_not_reported_means_the_same(body: Any, value: Any, field: str) -> None:
    """Where nothing is reported, the cut schema accepts exactly what the original did."""
    schema = {
        "type": "object",
        "properties": {"x": body},
        "$defs": {"Word": {"type": "string", "enum": ["a", "z"]}},
        "definitions": {"Count": {"type": "integer", "minimum": 1}},
    }
    out, lost = run(schema, field)
    if field == "parametersJsonSchema" and _plain(schema):  # the walk skipped says the same
        assert (out, lost) == (schema, [])
    if lost:
        return
    instance = {"x": value}
    before = jsonschema.Draft202012Validator(schema).is_valid(instance)
    if field == "parameters":
        out = _as_json_schema(out)
    after = jsonschema.Draft202012Validator(out).is_valid(instance)
    assert before == after


def _as_json_schema(node: Any) -> Any:
    """Google's Schema read back as JSON Schema (nullable as a type list), to validate with."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _as_json_schema(value) for key, value in node.items() if key != "nullable"}
    if isinstance(node.get("properties"), dict):
        out["properties"] = {k: _as_json_schema(v) for k, v in node["properties"].items()}
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out
