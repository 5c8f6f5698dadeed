"""The names a path may show: every field name of the six families' wire formats.

``python tests/vocabulary.py`` writes ``src/chatcodec/_vocabulary.py`` from the
official SDKs pinned in the ``dev`` group (their request, response and stream
types), botocore's Bedrock Runtime service model, the JSON Schema and OpenAPI
keywords, the fields of the OpenAI-compatible dialects chatcodec reads, and
chatcodec's own field names and the names its code writes or reads.
``tests/test_paths.py`` checks that the written file still holds every name
these sources give.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import typing_extensions

TARGET = Path(__file__).parents[1] / "src" / "chatcodec" / "_vocabulary.py"
PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Keywords of JSON Schema (2020-12 and draft 7: core, applicator, validation,
# metadata, format, content) and of OpenAPI 3's schema object, which Gemini takes.
SCHEMA_KEYWORDS = [
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "$recursiveRef",
    "$recursiveAnchor",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "additionalItems",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "dependencies",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "nullable",
    "discriminator",
    "example",
    "externalDocs",
    "xml",
    "propertyOrdering",
    "strict",
]

# Fields of the OpenAI-compatible dialects (DeepSeek, OpenRouter, vLLM, Groq,
# Mistral, Gemini's compatible endpoint) and of error bodies, which no SDK types.
DIALECT_FIELDS = [
    "reasoning_content",
    "reasoning_details",
    "reasoning",
    "extra_content",
    "google",
    "thought_signature",
    "x_groq",
    "random_seed",
    "safe_prompt",
    "prefix",
    "provider",
    "transforms",
    "models",
    "route",
    "min_p",
    "top_a",
    "repetition_penalty",
    "chat_template_kwargs",
    "guided_json",
    "guided_regex",
    "guided_choice",
    "guided_grammar",
    "guided_decoding_backend",
    "skip_special_tokens",
    "include_stop_str_in_output",
    "retryDelay",
    "detail",
    "errors",
    "param",
]


def _sdk_names(package: str) -> Iterator[str]:
    """Field names (and their wire aliases) of every model and TypedDict in ``package``."""
    root = importlib.import_module(package)
    modules = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), package + "."):
        modules.append(importlib.import_module(info.name))
    for module in modules:
        for value in vars(module).values():
            if not inspect.isclass(value):
                continue
            fields: Any = getattr(value, "model_fields", None)
            if isinstance(fields, dict):
                config: Any = getattr(value, "model_config", None) or {}
                alias = config.get("alias_generator")
                for name, field in fields.items():
                    yield name
                    for wire in (field.alias, field.serialization_alias):
                        if isinstance(wire, str):
                            yield wire
                    if callable(alias):
                        wire = alias(name)
                        if isinstance(wire, str):
                            yield wire
            elif typing_extensions.is_typeddict(value):
                yield from value.__annotations__


def _bedrock_names() -> Iterator[str]:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    for name in model.shape_names:
        yield from getattr(model.shape_for(name), "members", {})


def _own_names() -> Iterator[str]:
    import chatcodec

    for value in vars(chatcodec).values():
        if inspect.isclass(value) and issubclass(value, msgspec.Struct):
            yield from value.__struct_fields__
            yield from value.__struct_encode_fields__


def _source_names() -> Iterator[str]:
    """The names chatcodec's own code writes or reads (its string constants)."""
    import ast

    package = TARGET.parent
    for path in sorted(package.rglob("*.py")):
        if path == TARGET:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) is str:
                word = node.value
                if len(word) <= 40 and not word.startswith("_") and PLAIN.match(word):
                    yield word


def names() -> frozenset[str]:
    """Every plain name the sources give."""
    found: set[str] = {*SCHEMA_KEYWORDS, *DIALECT_FIELDS}
    found.update(_source_names())
    for package in ("openai.types", "anthropic.types", "google.genai.types", "ollama._types"):
        found.update(_sdk_names(package))
    found.update(_bedrock_names())
    found.update(_own_names())
    return frozenset(name for name in found if PLAIN.match(name) or name.startswith("$"))


def render(words: frozenset[str]) -> str:
    """The module's source for ``words``."""
    lines = [
        '"""The names a JSON path shows as they are: field names of the wire formats.',
        "",
        "Written by ``python tests/vocabulary.py`` from the official SDKs' types, Bedrock",
        "Runtime's service model, JSON Schema's keywords, the OpenAI-compatible dialects'",
        "fields and chatcodec's own; any other key of an input object is data, and a path",
        "writes it as a digest (:func:`chatcodec._paths.key_step`). Do not edit by hand.",
        '"""',
        "",
        "NAMES = frozenset(",
        "    (",
    ]
    lines += [f'        "{word}",' for word in sorted(words)]
    lines += ["    )", ")", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    words = names()
    TARGET.write_text(render(words), encoding="utf-8")
    print(f"{len(words)} names written to {TARGET}", file=sys.stderr)
