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

from ._errors import ValidationError

__all__ = ["close_objects", "map_subschemas", "object_schema", "open_objects"]

_REF_PREFIX = "#/$defs/"
# Keywords whose values are schemas, by how they hold them.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {"items", "not", "if", "then", "else", "contains", "additionalItems", "additionalProperties"}
)


def map_subschemas(schema: dict[str, Any], fn: Callable[[Any], Any]) -> dict[str, Any]:
    """Copy ``schema`` with ``fn`` applied to each schema directly inside it."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: fn(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [fn(sub) for sub in value]
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            out[key] = fn(value)
        else:
            out[key] = value
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
