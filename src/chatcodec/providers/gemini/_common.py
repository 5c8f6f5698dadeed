"""Gemini's spellings and enums: camelCase or snake_case keys, finish reasons, schema types.

Gemini accepts both spellings of every key (``functionCall`` and
``function_call``), and real bodies use both, one style per key throughout a
body. The decoders read either and record the snake_case keys they met in one
hint on the request or response (``"~snake": ["function_call", ...]``); the
encoders spell those keys the same way and every other key in camelCase.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from ..._depth import MAX_DEPTH
from ..._errors import DepthError
from ..._frozen import FrozenMap
from ..._tools import ToolCall
from ..._usage import FinishReason
from .._finish import READ, reason_of, write
from .._wire import as_kept

NAME = "gemini"

SNAKE = "~snake"
"""Hint: the snake_case keys a body used."""

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The thought signature Google documents for function calls Gemini did not make."""
UNSIGNED = "~unsigned"
"""Call hint: Gemini sent this first call of its turn without a ``thoughtSignature``, so
no placeholder is added to it (a call read from Gemini goes back as it came)."""
NO_MIME = "~nomime"
"""Part hint: its ``fileData`` had no ``mimeType`` (none is guessed back)."""
NO_PARTS = "~noparts"
"""Model turn hint: the turn had no ``parts`` key."""
B64 = "~b64"
"""Part hint: its ``inlineData.data`` was URL-safe or unpadded base64 (the part holds
standard base64); the value names the form, to write it back as sent."""


def mark_unsigned(calls: list[ToolCall]) -> None:
    """Mark the first of a turn's calls read from Gemini when none carries Gemini's keys.

    Without a mark such a turn looks like one built by hand or read from
    another family, which the encoder signs with :data:`SKIP_SIGNATURE`;
    a call with Gemini's keys (a signature, a derived id) marks its turn already.
    """
    if calls and all(call.extras is None for call in calls):
        calls[0] = msgspec.structs.replace(calls[0], extras={NAME: {UNSIGNED: True}})


def signs_calls(model: str | None) -> bool:
    """Whether ``model`` is a Gemini 3 model, which refuses unsigned function calls."""
    return (model or "").removeprefix("models/").startswith("gemini-3")


_CAMEL_KEYS = (
    "systemInstruction",
    "toolConfig",
    "generationConfig",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "thoughtSignature",
    "mimeType",
    "fileUri",
    "functionDeclarations",
    "parametersJsonSchema",
    "functionCallingConfig",
    "allowedFunctionNames",
    "maxOutputTokens",
    "topP",
    "topK",
    "presencePenalty",
    "frequencyPenalty",
    "candidateCount",
    "thinkingConfig",
    "thinkingBudget",
    "thinkingLevel",
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
    "usageMetadata",
    "modelVersion",
    "responseId",
    "finishReason",
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
)


def snake(key: str) -> str:
    """``"functionCall"`` -> ``"function_call"``."""
    return re.sub(r"([A-Z])", r"_\1", key).lower()


def table(*camel: str) -> dict[str, str]:
    """Both spellings of each key, mapped to the camelCase one."""
    out = {key: key for key in camel}
    out.update({snake(key): key for key in camel})
    return out


CAMEL: Mapping[str, str] = FrozenMap({key: key for key in _CAMEL_KEYS})


@functools.lru_cache(maxsize=64)
def _spelled(snakes: frozenset[str]) -> Mapping[str, str]:
    # Read-only: the cache hands the same mapping to every caller.
    return FrozenMap({key: snake(key) if snake(key) in snakes else key for key in _CAMEL_KEYS})


def spelling(hint: Any) -> Mapping[str, str]:
    """The wire spelling of each known key, from a ``~snake`` hint (or none)."""
    if not hint or not isinstance(hint, list | tuple):
        return CAMEL
    return _spelled(frozenset(key for key in hint if isinstance(key, str)))


def split(
    obj: dict[str, Any], known: Mapping[str, str], snakes: set[str]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The known keys of ``obj`` (by camelCase name) and the rest, as sent.

    A key spelled both ways in one object keeps its second spelling in the
    rest, so nothing is dropped.
    """
    found: dict[str, Any] = {}
    rest: dict[str, Any] | None = None
    for key, value in obj.items():
        name = known.get(key)
        if name is None or name in found:
            if rest is None:
                rest = {}
            rest[key] = value
        else:
            found[name] = value
            if name != key:
                snakes.add(key)
    return found, as_kept(rest) if rest else rest


def snake_hint(snakes: Iterable[str]) -> dict[str, Any]:
    """The ``~snake`` hint for the keys met, or nothing."""
    return {SNAKE: sorted(snakes)} if snakes else {}


# Candidate.FinishReason, by name and by the generativelanguage proto number
# (``enum-encoding=int``).
_FINISH_NAMES: Mapping[str, FinishReason | None] = READ[NAME]
_FINISH_NUMBERS = (
    "FINISH_REASON_UNSPECIFIED",  # 0
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "OTHER",  # 5
    "LANGUAGE",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",  # 10
    "IMAGE_SAFETY",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_OTHER",  # 15
    "NO_IMAGE",
    "IMAGE_RECITATION",
    "MISSING_THOUGHT_SIGNATURE",
)


def finish_reason(raw: str | int, has_calls: bool) -> FinishReason | None:
    """Normalize a finish reason sent as a name or a proto number.

    ``FINISH_REASON_UNSPECIFIED`` (the proto's 0) is no reason known: None,
    the raw name kept beside it. Any other name it does not know is ``OTHER``.
    """
    if type(raw) is int:
        raw = _FINISH_NUMBERS[raw] if 0 <= raw < len(_FINISH_NUMBERS) else ""
    reason = _FINISH_NAMES.get(raw, FinishReason.OTHER)  # type: ignore[arg-type]
    if reason is FinishReason.STOP and has_calls:
        return FinishReason.TOOL_CALLS
    return reason


def finish_out(
    reason: FinishReason | None,
    raw: str | int | None,
    has_calls: bool,
    lose: Callable[[str], None] | None = None,
) -> Any:
    """The finish reason to write: the raw one if it still says the same.

    ``lose`` is told why, when Gemini has no name for the reason.
    """
    if reason is None:
        # No reason: a name of Gemini's own that says so is written back
        # (FINISH_REASON_UNSPECIFIED, proto 0); another family's (OpenAI's "")
        # is no Gemini name at all.
        return raw if type(raw) is int or raw in READ[NAME] else None
    reason = reason_of(reason, "$.choices[0].finish_reason")
    if type(raw) is int:
        if finish_reason(raw, has_calls) is reason:
            return raw
        raw = None
    meant = finish_reason(raw, has_calls) if raw is not None else None
    wire, lost = write(NAME, reason, raw, meant)
    if lost is not None and lose is not None:
        lose(lost)
    return wire


# Gemini's Schema dialect: types in upper case, or as proto numbers.
_TYPE_NAMES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")
_UPPER_TO_LOWER = FrozenMap({name: name.lower() for name in _TYPE_NAMES})
_INT_TO_LOWER = FrozenMap({number: name.lower() for number, name in enumerate(_TYPE_NAMES, 1)})
_LOWER_TO_UPPER = FrozenMap({lower: upper for upper, lower in _UPPER_TO_LOWER.items()})
_LOWER_TO_INT = FrozenMap({lower: number for number, lower in _INT_TO_LOWER.items()})
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "defs")
_SCHEMA_LISTS = ("anyOf", "any_of", "oneOf", "allOf", "prefixItems", "prefix_items")
_SCHEMA_ONE = ("items", "additionalProperties", "not")


class _Mixed(Exception):
    pass


def _walk(schema: Any, convert: Any, depth: int = 1) -> Any:
    """A copy of ``schema`` with ``convert`` applied to each ``type``.

    ``isinstance``, not ``type() is``: a definition's schema is frozen (dict
    and list subclasses). Each call is at least one level deeper in the JSON
    than its caller: past :data:`MAX_DEPTH` calls, the schema is too deep.
    """
    if not isinstance(schema, dict):
        return schema
    if depth > MAX_DEPTH:
        raise DepthError(MAX_DEPTH)
    depth += 1
    out = dict(schema)
    if "type" in out:
        out["type"] = convert(out["type"])
    for key in _SCHEMA_MAPS:
        value = out.get(key)
        if isinstance(value, dict):
            out[key] = {name: _walk(item, convert, depth) for name, item in value.items()}
    for key in _SCHEMA_LISTS:
        value = out.get(key)
        if isinstance(value, list):
            out[key] = [_walk(item, convert, depth) for item in value]
    for key in _SCHEMA_ONE:
        value = out.get(key)
        if isinstance(value, dict):
            out[key] = _walk(value, convert, depth)
        elif key == "items" and isinstance(value, list):
            out[key] = [_walk(item, convert, depth) for item in value]
    return out


def from_gemini_schema(
    schema: dict[str, Any], path: str = "$.parameters"
) -> tuple[dict[str, Any], str] | None:
    """JSON Schema from Gemini's Schema dialect, and the type style to restore.

    The style is ``"lower"`` (types already in lower case), ``"upper"`` or
    ``"int"``; ``None`` as a whole when the schema mixes styles or holds a
    type chatcodec cannot name, and so is kept as sent.

    Raises
    ------
    DepthError
        If ``schema`` (at ``path``) nests deeper than the walk goes.
    """
    styles: set[str] = set()

    def convert(value: Any) -> Any:
        if type(value) is str:
            if value in _UPPER_TO_LOWER:
                styles.add("upper")
                return _UPPER_TO_LOWER[value]
            if value in _LOWER_TO_UPPER:
                styles.add("lower")
                return value
        elif type(value) is int and value in _INT_TO_LOWER:
            styles.add("int")
            return _INT_TO_LOWER[value]
        raise _Mixed

    try:
        converted = _walk(schema, convert)
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, path) from None
    except _Mixed:
        return None
    if len(styles) > 1:
        return None
    return converted, next(iter(styles), "lower")


def to_gemini_schema(
    schema: dict[str, Any], style: Any, path: str = "$.parameters"
) -> dict[str, Any]:
    """Gemini's Schema dialect in ``style`` (``"upper"``, ``"int"``) from JSON Schema."""
    table_ = _LOWER_TO_INT if style == "int" else _LOWER_TO_UPPER if style == "upper" else None
    if table_ is None:
        return schema
    try:  # a tool's is checked already; a response format's is not
        out: dict[str, Any] = _walk(
            schema, lambda value: table_.get(value, value) if type(value) is str else value
        )
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, path) from None
    return out
