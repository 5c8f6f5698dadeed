"""Schemas cut to what Gemini's schema fields take, when converting from another family.

Gemini has two fields for a function's parameters and two for an answer's
schema (sources: the ``FunctionDeclaration`` and ``GenerationConfig`` types of
Google's ``google-genai`` SDK, ``types.py``, and the Gemini API reference):

* ``parametersJsonSchema`` and ``responseJsonSchema`` take JSON Schema. Google
  documents for ``responseJsonSchema`` that "the full JSON Schema may be sent,
  [but] not all features are supported": ``$id``, ``$defs``, ``$ref``,
  ``$anchor``, ``type``, ``format``, ``title``, ``description``, ``enum``
  (strings and numbers), ``items``, ``prefixItems``, ``minItems``,
  ``maxItems``, ``minimum``, ``maximum``, ``anyOf``, ``oneOf`` (read as
  ``anyOf``), ``properties``, ``additionalProperties``, ``required`` and
  ``propertyOrdering``. Cyclic references are unrolled a few levels, and so
  only through properties that are not required; a ``$ref`` may have no
  sibling keywords but ``$``-ones. Google announced the JSON Schema fields for
  every Gemini model it serves (2.0 and later) in November 2025.
* ``parameters`` and ``responseSchema`` take Google's ``Schema``, a subset of
  the OpenAPI 3.0 schema object: ``type`` (one), ``format``, ``title``,
  ``description``, ``nullable``, ``enum`` (strings), ``items``, ``minItems``,
  ``maxItems``, ``properties``, ``required``, ``minProperties``,
  ``maxProperties``, ``minLength``, ``maxLength``, ``pattern``, ``example``,
  ``default``, ``anyOf``, ``minimum``, ``maximum`` and ``propertyOrdering``.
  No references (the Gemini API has no ``$defs``; Vertex AI's ``ref``/``defs``
  are its own), no ``additionalProperties`` (the SDK refuses it for the
  Gemini API). Unknown fields are refused (400).

chatcodec writes the JSON Schema fields (they take what the others cannot:
references, unions with ``null``, closed objects, tuples), and the ``Schema``
fields for a schema read from them (a body goes back as it came) or for a
model whose profile says it has no JSON Schema fields (``gemini-1.0`` and
``gemini-1.5``, retired before the announcement; see
:mod:`chatcodec.providers._profiles`).

A schema from another family is cut to the field's subset by :func:`fit`:
``const`` becomes an ``enum`` of its one value, a ``$ref`` the field cannot
follow is inlined where it is finite (a recursive one cannot be: reported),
and every keyword left that the field does not take is left out and reported
as a loss, by its path and the field's name. A schema read from Gemini is
never cut: Gemini took it as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ..._exchange import Request
from ..._loss import Loss
from ..._paths import key_step
from ..._schema import GEMINI_KEYWORDS
from ..._tools import ToolDefinition
from .._profiles import profile
from ._common import NAME

__all__ = ["JSON_FIELDS", "fit", "fit_request", "fits"]

JSON_FIELDS = frozenset({"parametersJsonSchema", "responseJsonSchema"})
"""The fields that take JSON Schema; the others take Google's ``Schema``."""

# What Google's ``Schema`` object has (the OpenAPI 3.0 subset).
_SCHEMA_TAKES = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "items", "minItems",
        "maxItems", "properties", "required", "minProperties", "maxProperties", "minLength",
        "maxLength", "pattern", "example", "default", "anyOf", "minimum", "maximum",
        "propertyOrdering",
    }
)  # fmt: skip
_DEFS = ("$defs", "definitions")
_ROOT_DEF = "#/$defs/"
_NUMBER = (int, float)

RECURSIVE = "a recursive reference cannot be inlined"
NOWHERE = "a reference to nothing in the schema"
FORCED_CYCLE = (
    "a recursive reference through required properties only: gemini unrolls a cycle"
    " only through optional ones"
)


def _not_taken(field: str) -> str:
    return f"a keyword gemini's {field} does not take"


def _resolve(root: Any, ref: str) -> Any:
    """The schema a local reference (``#/...``) points to, or None."""
    if not ref.startswith("#"):
        return None
    node = root
    for token in ref[1:].split("/")[1:] if ref != "#" else ():
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, dict | bool) else None


class _Fit:
    """One schema's walk: the cut copy, and what it reported."""

    __slots__ = ("edges", "field", "json", "lose", "root", "stack", "takes")

    def __init__(self, root: Any, field: str, lose: Callable[[str, str], None]) -> None:
        self.root = root
        self.field = field
        self.json = field in JSON_FIELDS
        self.takes = GEMINI_KEYWORDS if self.json else _SCHEMA_TAKES
        self.lose = lose
        self.stack: list[str] = ["#"]  # the references being inlined (the root is one)
        # $defs name -> the names it reaches through required properties only, where.
        self.edges: dict[str, list[tuple[str, str]]] = {}

    def node(self, node: Any, at: str, owner: str, forced: bool) -> Any:
        """The cut copy of ``node`` (at ``at``).

        ``owner`` is the ``$defs`` entry being walked ("" at the root) and
        ``forced`` whether every step from it came through a required property.
        """
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            kept = self.reference(node, ref, at, owner, forced)
            if kept is not None:
                return kept
            node = {key: value for key, value in node.items() if key != "$ref"}
        out: dict[str, Any] = {}
        required = node.get("required")
        names = set(required) if isinstance(required, list) else ()
        for key, value in node.items():
            step = at + key_step(key)
            if key == "const":
                self.const(out, node, value, step)
            elif key in _DEFS:
                if key == "$defs" and self.json and isinstance(value, dict) and node is self.root:
                    out[key] = {
                        name: self.node(sub, f"{step}{key_step(name)}", name, True)
                        for name, sub in value.items()
                    }
                # Else inlined where used: what is not used has no meaning to carry.
            elif key not in self.takes:
                self.lose(step, _not_taken(self.field))
            elif key == "properties" and isinstance(value, dict):
                out[key] = {
                    name: self.node(sub, f"{step}{key_step(name)}", owner, forced and name in names)
                    for name, sub in value.items()
                }
            elif key in ("anyOf", "oneOf", "prefixItems") and isinstance(value, list):
                out[key] = [
                    self.node(sub, f"{step}[{i}]", owner, False) for i, sub in enumerate(value)
                ]
            elif key == "items" and isinstance(value, list):  # the older tuple form
                if self.json and "prefixItems" not in node:  # the form the field takes
                    out["prefixItems"] = [
                        self.node(sub, f"{step}[{i}]", owner, False) for i, sub in enumerate(value)
                    ]
                else:
                    self.lose(step, _not_taken(self.field))
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                out[key] = self.node(value, step, owner, False)
            elif key == "type" and not self.json and isinstance(value, list):
                self.types(out, value, step)
            elif key == "enum" and not self.json and isinstance(value, list):
                if all(type(item) is str for item in value):
                    out[key] = value
                else:
                    self.lose(
                        step, "an enum of other values than strings: gemini's Schema has none"
                    )
            else:
                out[key] = value
        return out

    def reference(self, node: dict[str, Any], ref: str, at: str, owner: str, forced: bool) -> Any:
        """The node a ``$ref`` stands for; None to drop the reference (reported)."""
        step = at + ".$ref"
        siblings = [key for key in node if not key.startswith("$")]
        name = ref[len(_ROOT_DEF) :] if ref.startswith(_ROOT_DEF) else None
        defs = self.root.get("$defs") if isinstance(self.root, dict) else None
        if (
            self.json
            and name is not None
            and "/" not in name
            and not siblings
            and isinstance(defs, dict)
            and name in defs
        ):
            # Kept: the field follows a reference into the root's $defs.
            if forced:
                self.edges.setdefault(owner, []).append((name, step))
            out = {key: value for key, value in node.items() if key in self.takes}
            for key in node:
                if key not in self.takes:
                    self.lose(at + key_step(key), _not_taken(self.field))
            return out
        if ref in self.stack:
            self.lose(step, RECURSIVE)
            return None
        target = _resolve(self.root, ref)
        if target is None:
            self.lose(step, NOWHERE)
            return None
        if not isinstance(target, dict):
            target = {} if target else {"not": {}}  # true: anything; false: nothing
        self.stack.append(ref)
        try:
            merged = {**target, **{key: value for key, value in node.items() if key != "$ref"}}
            return self.node(merged, at, owner, forced)
        finally:
            self.stack.pop()

    def const(self, out: dict[str, Any], node: dict[str, Any], value: Any, step: str) -> None:
        """``const`` as an ``enum`` of its one value, where the field's enum takes it."""
        if type(value) is str or (self.json and type(value) in _NUMBER):
            enum = node.get("enum")
            if isinstance(enum, list) and value not in enum:
                self.lose(step, "a const outside its own enum")
            else:
                out["enum"] = [value]
                if not self.json and "type" not in node and type(value) is str:
                    out["type"] = "string"  # Schema's enum is of a type's values
        else:
            self.lose(step, _not_taken(self.field))

    def types(self, out: dict[str, Any], value: list[Any], step: str) -> None:
        """A list of types as ``Schema`` says it: one type, ``nullable``, or ``anyOf``."""
        kinds = [kind for kind in value if kind != "null"]
        if len(kinds) < len(value):
            out["nullable"] = True
        if len(kinds) == 1:
            out["type"] = kinds[0]
        elif kinds:
            out["anyOf"] = [{"type": kind} for kind in kinds]
        else:
            self.lose(step, "a type gemini's Schema cannot say (null alone)")

    def cycles(self) -> None:
        """Report each reference that closes a cycle of required properties."""
        done: set[str] = set()
        path: list[str] = []

        def visit(name: str) -> None:
            path.append(name)
            for target, where in self.edges.get(name, ()):
                if target in path:
                    self.lose(where, FORCED_CYCLE)
                elif target not in done:
                    visit(target)
            path.pop()
            done.add(name)

        for name in list(self.edges):
            if name not in done:
                visit(name)


def fit(
    schema: dict[str, Any], field: str, path: str, lose: Callable[[str, str], None]
) -> dict[str, Any]:
    """``schema`` cut to what Gemini's ``field`` takes; ``lose(path, rule)`` told of each cut.

    ``field`` is the wire field written: ``parametersJsonSchema`` or
    ``responseJsonSchema`` (JSON Schema), ``parameters`` or ``responseSchema``
    (Google's ``Schema``). Paths start at ``path``. A new dict: ``schema`` is
    not changed.
    """
    walk = _Fit(schema, field, lose)
    out: dict[str, Any] = walk.node(schema, path, "", True)
    if walk.json:
        walk.cycles()
    return out


def _plain(node: Any, root: bool = True) -> bool:
    """Whether ``node`` holds only keywords a JSON field takes, and no reference or ``const``.

    Such a schema is one :func:`fit` gives back as it is, reporting nothing:
    the usual schema is told so by this walk, which builds nothing.
    """
    if not isinstance(node, dict):
        return True
    for key, value in node.items():
        if key not in GEMINI_KEYWORDS or key == "$ref" or (key == "$defs" and not root):
            return False  # $defs is kept at the root only
        if key in _MAPS:
            if isinstance(value, dict) and not all(_plain(sub, False) for sub in value.values()):
                return False
        elif key in _LISTS:
            if isinstance(value, list) and not all(_plain(sub, False) for sub in value):
                return False
        elif key in _ONE and (isinstance(value, list) or not _plain(value, False)):
            return False  # the older tuple form of items becomes prefixItems
    return True


_MAPS = frozenset({"properties", "$defs"})
_LISTS = frozenset({"anyOf", "oneOf", "prefixItems"})
_ONE = frozenset({"items", "additionalProperties"})


def fits(schema: dict[str, Any]) -> bool:
    """Whether :func:`fit` gives ``schema`` back as it is, reporting nothing, for a JSON field."""
    if _plain(schema):
        return True
    lost: list[str] = []
    out = fit(schema, "parametersJsonSchema", "$", lambda at, rule: lost.append(at))
    return not lost and out == schema


def fit_request(request: Request, losses: list[Loss]) -> Request:
    """``request`` with its tools' and answer's schemas cut for Gemini (see the module).

    For a request converted from another family: the JSON Schema fields,
    or Google's ``Schema`` fields for a model whose profile has no JSON
    Schema fields (the schema then carries the hint that has the encoder
    write them). What is cut is reported in ``losses``.
    """
    found = profile(NAME, request.model)
    json = found is None or found.json_schema

    def lose(at: str, rule: str) -> None:
        losses.append(Loss(at, rule))

    tools: list[Any] | None = None
    for i, tool in enumerate(request.tools):
        if type(tool) is not ToolDefinition or tool.parameters is None:
            continue
        if json and _plain(tool.parameters):
            continue  # the usual schema: nothing to cut
        field = "parametersJsonSchema" if json else "parameters"
        params = fit(tool.parameters, field, f"$.tools[{i}].parameters", lose)
        if params == tool.parameters and json:
            continue
        if tools is None:
            tools = list(request.tools)
        extras = None if json else _hinted(tool.extras, "~params")
        tools[i] = msgspec.structs.replace(
            tool, parameters=params, extras=extras if extras is not None else tool.extras
        )
    answer = request.response_format
    if answer is not None and answer.type == "json_schema" and answer.schema is not None:
        field = "responseJsonSchema" if json else "responseSchema"
        schema = fit(answer.schema, field, "$.response_format.schema", lose)
        if schema != answer.schema or not json:
            extras = None if json else _hinted(answer.extras, "~schema")
            answer = msgspec.structs.replace(
                answer, schema=schema, extras=extras if extras is not None else answer.extras
            )
    if tools is None and answer is request.response_format:
        return request
    return msgspec.structs.replace(
        request, tools=request.tools if tools is None else tuple(tools), response_format=answer
    )


def _hinted(extras: Any, hint: str) -> dict[str, Any]:
    """``extras`` with the hint that has the encoder write Google's ``Schema`` field."""
    out = dict(extras) if extras else {}
    own = out.get(NAME)
    out[NAME] = {**(own if isinstance(own, dict) else {}), hint: "upper"}
    return out
