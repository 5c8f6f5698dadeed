"""JSON Schema for tool parameters: generation from Python types and closing.

msgspec writes the schema (required fields are exactly those without a
default); this module inlines its ``$ref`` s, since several providers do not
follow references, and drops the ``title`` s msgspec adds from class names.
Walks go through :func:`map_subschemas`, which knows which keywords hold
schemas, so a property that happens to be named ``title`` or ``properties`` is
data, never a keyword.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ._depth import check_depth
from ._errors import ValidationError
from ._frozen import FrozenDict, FrozenList, freeze, thaw
from ._paths import key_step

__all__ = [
    "GEMINI_KEYWORDS",
    "FrozenDict",
    "FrozenList",
    "check_schema",
    "close_objects",
    "freeze",
    "freeze_schema",
    "map_subschemas",
    "object_schema",
    "open_objects",
    "thaw",
]

_REF_PREFIX = "#/$defs/"
# Keywords whose values are schemas, by how they hold them.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {"items", "not", "if", "then", "else", "contains", "additionalItems", "additionalProperties"}
)


# Frozen schemas by their JSON: an application sends the same few tools with
# every request, so a decode finds its schema here instead of copying it
# again. Sharing is safe because they are frozen; equal JSON is what is
# sent. Cleared when full, so it stays small.
_FROZEN_SCHEMAS: dict[bytes, FrozenDict] = {}
_FROZEN_SCHEMAS_LIMIT = 256
_encode = msgspec.json.Encoder().encode


def freeze_schema(schema: dict[str, Any], path: str = "$.parameters") -> FrozenDict:
    """:func:`freeze` for a tool's schema, shared with an equal one seen before.

    The schema's depth is checked first (a frozen schema is checked: every
    walk of it stays within :data:`~chatcodec.MAX_DEPTH`).

    Raises
    ------
    DepthError
        If the schema nests deeper than the limit.
    """
    try:
        key = _encode(schema)
    except (TypeError, ValueError, OverflowError, RecursionError):
        check_depth(schema, path)
        check_schema(schema, "$.parameters")
        return freeze(schema)  # type: ignore[no-any-return]
    frozen = _FROZEN_SCHEMAS.get(key)
    if frozen is None:
        check_depth(schema, path)
        check_schema(schema, "$.parameters")  # once per distinct schema
        frozen = freeze(schema)
        if len(_FROZEN_SCHEMAS) >= _FROZEN_SCHEMAS_LIMIT:
            _FROZEN_SCHEMAS.clear()
        _FROZEN_SCHEMAS[key] = frozen
    return frozen


# The JSON Schema meta-schema's structure: what each keyword's value must be.
_TEXT_KEYWORDS = frozenset({"title", "description", "pattern", "format", "$ref", "$id", "$schema"})
_COUNT_KEYWORDS = frozenset(
    {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)
_NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "multipleOf"})
_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


def check_schema(schema: Any, path: str) -> None:
    """Raise unless ``schema`` has the structure the JSON Schema meta-schema gives.

    Each keyword this module knows must hold what the meta-schema says
    (``properties`` an object of schemas, ``required`` an array of strings,
    ``type`` a type name or an array of them, counts non-negative
    integers...); a schema is an object or a boolean. Keywords it does not
    know are left to the provider. Property names show as ``[...]``.

    Raises
    ------
    ValidationError
        Naming the keyword's path and what it must be.
    """
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise ValidationError("must be a JSON Schema (an object or a boolean)", path)
    for key, value in schema.items():
        at = f"{path}.{key}"
        if key in _SCHEMA_MAPS:
            if not isinstance(value, dict):
                raise ValidationError("must be an object of schemas", at)
            for sub in value.values():
                check_schema(sub, f"{at}[...]")
        elif key in _SCHEMA_LISTS:
            if not isinstance(value, list) or not value:
                raise ValidationError("must be a non-empty array of schemas", at)
            for i, sub in enumerate(value):
                check_schema(sub, f"{at}[{i}]")
        elif key == "items" and isinstance(value, list):  # the older array form
            for i, sub in enumerate(value):
                check_schema(sub, f"{at}[{i}]")
        elif key in _SCHEMA_ONE:
            check_schema(value, at)
        elif key == "type":
            names = value if isinstance(value, list) else [value]
            if not names or any(type(name) is not str or name not in _TYPES for name in names):
                raise ValidationError("must be a JSON Schema type or an array of them", at)
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValidationError("must be an array of strings", at)
        elif key == "enum":
            if not isinstance(value, list):
                raise ValidationError("must be an array", at)
        elif key in _TEXT_KEYWORDS:
            if not isinstance(value, str):
                raise ValidationError("must be a string", at)
        elif key in _COUNT_KEYWORDS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValidationError("must be a non-negative integer", at)
        elif key in _NUMBER_KEYWORDS and (
            isinstance(value, bool) or not isinstance(value, int | float)
        ):
            raise ValidationError("must be a number", at)
        elif key == "uniqueItems" and not isinstance(value, bool):
            raise ValidationError("must be true or false", at)


def map_subschemas(schema: dict[str, Any], fn: Callable[[Any], Any]) -> dict[str, Any]:
    """Copy ``schema`` with ``fn`` applied to each schema directly inside it.

    Other values are copied as plain ``dict`` and ``list``.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: fn(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [fn(sub) for sub in value]
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            out[key] = fn(value)
        else:
            out[key] = thaw(value)
    return out


def close_objects(schema: Any) -> Any:
    """Copy ``schema`` with ``additionalProperties: false`` on every object schema."""
    if not isinstance(schema, dict):
        return schema
    closed = map_subschemas(schema, close_objects)
    kind = closed.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in closed:
        closed["additionalProperties"] = False
    return closed


def any_open(node: Any) -> bool:
    """Whether any ``additionalProperties`` in ``node`` is not false (no paths built)."""
    if not isinstance(node, dict):
        return False
    if node.get("additionalProperties", False) is not False:
        return True
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            if any(any_open(sub) for sub in value.values()):
                return True
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            if any(any_open(sub) for sub in value):
                return True
        elif key in _SCHEMA_ONE and any_open(value):
            return True
    return False


def open_objects(schema: Any, path: str = "$") -> list[str]:
    """Paths of every ``additionalProperties`` in ``schema`` that is not false.

    Property names show as ``[...]``: they are data, and paths stay free of it.
    """
    found: list[str] = []

    def visit(node: Any, at: str) -> None:
        if not isinstance(node, dict):
            return
        if node.get("additionalProperties", False) is not False:
            found.append(f"{at}.additionalProperties")
        for key, value in node.items():
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                for sub in value.values():
                    visit(sub, f"{at}.{key}[...]")
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                for i, sub in enumerate(value):
                    visit(sub, f"{at}.{key}[{i}]")
            elif key in _SCHEMA_ONE:
                visit(value, f"{at}.{key}")

    visit(schema, path)
    return found


def object_schema(type_: Any) -> tuple[dict[str, Any], str | None]:
    """Return the inlined object schema of ``type_`` and its description.

    Raises
    ------
    ValidationError
        If the type is not an object type (Struct, dataclass, TypedDict...) or
        is recursive, which cannot be inlined.
    """
    try:
        schema = msgspec.json.schema(type_)
    except (TypeError, ValueError, NameError) as exc:
        raise ValidationError(
            f"type has no JSON Schema ({type(exc).__name__})", "$.parameters"
        ) from None
    defs: dict[str, Any] = schema.pop("$defs", {})
    inlined = _Inliner(defs)(schema)
    if not isinstance(inlined, dict) or inlined.get("type") != "object":
        raise ValidationError('must be a JSON Schema with "type": "object"', "$.parameters")
    description = inlined.pop("description", None)
    return inlined, description


class _Inliner:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.stack: list[str] = []

    def __call__(self, schema: Any) -> Any:
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref[len(_REF_PREFIX) :]
            if name in self.stack:
                raise ValidationError("recursive types cannot be inlined", "$.parameters")
            self.stack.append(name)
            try:
                siblings = {k: v for k, v in schema.items() if k != "$ref"}
                return self({**self.defs[name], **siblings})
            finally:
                self.stack.pop()
        out = map_subschemas(schema, self)
        out.pop("title", None)
        if out.get("required") == []:
            del out["required"]
        return out


# -- strict form ---------------------------------------------------------------


def strict_form(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as strict modes take it: every property required.

    OpenAI's strict mode (the strictest) wants every property listed in
    ``required`` and refuses ``default``; an optional property is emulated
    by a type that also takes ``null``. So each property that was not
    required takes ``null`` too, and its default moves into its
    description.
    """
    out = map_subschemas(schema, _strict_sub)
    props = out.get("properties")
    if isinstance(props, dict) and props:
        required = out.get("required") or []
        for key, sub in props.items():
            if key not in required and isinstance(sub, dict):
                props[key] = _nullable(sub)
        out["required"] = list(props)
    return out


def _strict_sub(sub: Any) -> Any:
    return strict_form(sub) if isinstance(sub, dict) else sub


def _nullable(sub: dict[str, Any]) -> dict[str, Any]:
    """``sub`` taking ``null`` as well, its default named in its description."""
    out = dict(sub)
    default = out.pop("default", None)
    kind = out.get("type")
    if isinstance(kind, str):
        if kind != "null":
            out["type"] = [kind, "null"]
    elif isinstance(kind, list):
        if "null" not in kind:
            out["type"] = [*kind, "null"]
    elif isinstance(out.get("anyOf"), list):
        if {"type": "null"} not in out["anyOf"]:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    elif not isinstance(out.get("enum"), list):  # an enum takes null below
        keep = {key: out.pop(key) for key in ("description",) if key in out}
        out = {"anyOf": [out, {"type": "null"}], **keep}
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    if default is not None:
        note = "Default: " + msgspec.json.encode(default).decode() + "."
        text = out.get("description")
        out["description"] = f"{text} ({note})" if text else note
    return out


# -- what a family's schema dialect lacks ---------------------------------------

# Gemini's function declarations take a subset of JSON Schema: what its
# ``parametersJsonSchema`` documents, and the fields of its own ``Schema``
# (``parameters``). Other keywords are dropped or refused.
GEMINI_KEYWORDS = frozenset(
    {
        "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description",
        "enum", "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum",
        "anyOf", "oneOf", "properties", "additionalProperties", "required",
        "propertyOrdering", "nullable", "minLength", "maxLength", "pattern",
        "minProperties", "maxProperties", "default", "example",
    }
)  # fmt: skip
# Keywords OpenAI's strict mode refuses.
_OPENAI_STRICT = frozenset(
    {
        "default", "minLength", "maxLength", "patternProperties", "unevaluatedProperties",
        "propertyNames", "minProperties", "maxProperties", "unevaluatedItems", "contains",
        "minContains", "maxContains", "uniqueItems", "allOf", "not", "if", "then", "else",
        "dependentRequired", "dependentSchemas",
    }
)  # fmt: skip
# Constraints Anthropic's strict mode does not enforce (its SDK moves them
# into the description).
_ANTHROPIC_STRICT = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "maxItems",
    }
)  # fmt: skip


def unsupported(schema: Any, family: str, strict: bool) -> list[tuple[str, str]]:
    """``(path, rule)`` for each keyword of ``schema`` that ``family`` cannot express."""
    if family == "gemini":
        allowed: frozenset[str] | None = GEMINI_KEYWORDS
        refused: frozenset[str] = frozenset()
        rule = "a keyword gemini's schema subset does not have"
    elif family == "openai" and strict:
        allowed, refused = None, _OPENAI_STRICT
        rule = "a keyword openai's strict mode refuses"
    elif family == "anthropic" and strict:
        allowed, refused = None, _ANTHROPIC_STRICT
        rule = "a constraint anthropic's strict mode does not enforce"
    else:
        return []
    found: list[tuple[str, str]] = []

    def visit(node: Any, at: str) -> None:
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if (allowed is not None and key not in allowed) or key in refused:
                found.append((at + key_step(key), rule))
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                for name, sub in value.items():
                    visit(sub, f"{at}.{key}{key_step(name)}")
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                for i, sub in enumerate(value):
                    visit(sub, f"{at}.{key}[{i}]")
            elif key in _SCHEMA_ONE:
                visit(value, f"{at}.{key}")

    visit(schema, "$.parameters")
    return found
