"""What the OpenAI decoder and encoder share: the name, hints, and small tables.

Hints (keys starting with ``~`` in a record's ``extras["openai"]``) say how
the wire spelled something that has no canonical field of its own:

- message ``"~content"``: ``"str"`` (a tuple of parts came from a string
  ``content`` beside ``refusal`` or reasoning) or ``"parts"`` (``content``
  was a list of parts); system and developer ``"~parts"``: the lengths and
  keys of the text parts their string was joined from;
- message ``"~reasoning"``: the key that held the reasoning text
  (``"reasoning_content"`` or ``"reasoning"``), or ``"reasoning_details"``
  for OpenRouter's list; ``"~dup"``: a second key repeating its text;
- message ``"~function_call"`` and request ``"~functions"`` /
  ``"~function_call"``: the legacy function-calling spelling; message
  ``"~invalid_at"``: where invalid calls sat among the valid ones;
- tool call ``"~id"`` (the id was derived, not sent), ``"~type"`` (no
  ``type`` key), ``"~arguments"`` (``"absent"`` or ``"object"``), and
  ``"~function"``: the other keys of the inner ``function`` object (tools
  and calls alike; ``"~json_schema"`` and ``"~inner"`` likewise for a
  response format and a content part). Unlike the other hints these hold
  content besides layout: another family reports each of their keys whose
  value is not null, ``""`` or ``false`` as lost;
- part ``"~in"``: a reasoning or refusal part sat in the ``content`` list
  (Mistral), ``"~chunks"``: the lengths of the thinking chunks it joins;
  ``"~type"``, ``"~str"``, ``"~raw"``: how a media part was spelled;
- tool message ``"~media"``: its content held media parts the server took
  (written back in place, not moved to a user message); response format
  ``"~name": "absent"``: its JSON schema had no name (none is made up);
- request ``"~top_k"``: the body had ``top_k`` (a dialect's: vLLM, Groq),
  written back only then; ``"~seed"``: the seed was Mistral's ``random_seed``;
- request ``"~max_tokens"``, ``"~stop"``, ``"~tool_choice"``: which
  spelling of the limit, the stop sequences and the forced choice was used;
- tool ``"~asis"``: a strict tool's schema is sent as it came, not closed;
- usage ``"~absent"``: counts the body did not give; response
  ``"~choices"`` / ``"~object"``, choice ``"~index"`` / ``"~message"``: keys
  that were absent (a response with neither ``object`` nor ``"~object"`` is
  another provider's, and gets the keys OpenAI requires);
  choice ``"~finish"``: a finish reason outside OpenAI's own set (a dialect's
  ``"error"``, a name no family defines), read from an OpenAI body and sent
  back as is; the same name from another family is not OpenAI's to send.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import Raw

from ..._cache import CachePoint
from ..._content import OpaquePart
from ..._depth import MAX_DEPTH
from ..._errors import DepthError, ValidationError
from ..._exchange import Reasoning
from ..._frozen import FrozenMap
from ..._schema import _SCHEMA_LISTS, _SCHEMA_MAPS, _SCHEMA_ONE
from ..._usage import FinishReason
from .._cache import take_cache
from .._finish import READ
from .._wire import expect_str, leftover

NAME = "openai"

_SUBSCHEMA_KEYS = _SCHEMA_MAPS | _SCHEMA_LISTS | _SCHEMA_ONE

ABSENT: Any = object()
"""Marker for a key the wire object does not have."""

FINISH: Mapping[str, FinishReason | None] = READ[NAME]
"""OpenAI's finish reasons (and dialects'), normalized; others are OTHER."""


CLOSED_FINISH = frozenset(("stop", "length", "tool_calls", "content_filter", "function_call"))
"""The finish reasons openai-python's types take: another family's stop is written as one."""


def normalize_finish(raw: str) -> FinishReason | None:
    """The normalized finish reason of a wire value."""
    return FINISH.get(raw, FinishReason.OTHER)


def split_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, base64 data)`` of a ``data:<type>;base64,<data>`` URL, else None.

    Only that exact spelling is split, so :func:`data_url` rebuilds it byte
    for byte.
    """
    if not url.startswith("data:"):
        return None
    end = url.find(";base64,", 5, 300)
    if end <= 5:
        return None
    media_type = url[5:end]
    if "," in media_type or ";" in media_type:
        return None
    return media_type, url[end + 8 :]


def data_url(media_type: str, data: str) -> str:
    """The ``data:`` URL of base64 ``data``."""
    return f"data:{media_type};base64,{data}"


AUDIO_FORMATS = FrozenMap({"mp3": "audio/mpeg"})
AUDIO_TYPES = FrozenMap(
    {"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/x-wav": "wav", "audio/wave": "wav"}
)


def audio_media_type(fmt: str) -> str:
    """The media type of an ``input_audio`` format."""
    return AUDIO_FORMATS.get(fmt) or f"audio/{fmt}"


def audio_format(media_type: str) -> str:
    """The ``input_audio`` format of a media type."""
    return AUDIO_TYPES.get(media_type) or media_type.rpartition("/")[2]


encode_json = msgspec.json.Encoder().encode


def extras(own: dict[str, Any] | None) -> dict[str, Any] | None:
    """A record's ``extras`` holding ``own`` (``None`` when it is empty)."""
    return {NAME: own} if own else None


def opaque(value: Any) -> OpaquePart:
    """An OpenAI block kept verbatim."""
    return OpaquePart(NAME, Raw(encode_json(value)))


def keep_or_fail(value: Any, key: str, path: str, own: dict[str, Any], rule: str) -> None:
    """Keep a ``null`` in ``own``; any other value of the wrong type is an error."""
    if value is not None:
        raise ValidationError(rule, path)
    own[key] = None


def opt_str(obj: dict[str, Any], key: str, path: str, own: dict[str, Any]) -> str | None:
    """An optional string field; ``null`` is kept in ``own``."""
    value = obj.get(key)
    if value is None:
        if key in obj:
            own[key] = None
        return None
    return expect_str(value, path)


def rest(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    """:func:`~chatcodec.providers._wire.leftover`, after a check in C that usually ends it."""
    if obj.keys() <= known:
        return None
    return leftover(obj, known)


def is_closed(schema: Any, path: str = "$.parameters") -> bool:
    """Whether ``close_objects(schema) == schema``: every object schema is closed.

    The walk of :func:`~chatcodec._schema.close_objects` without its copy,
    ending at the first object schema that is not closed.

    Raises
    ------
    DepthError
        If ``schema`` nests deeper than the walk goes (checked first).
    """
    try:
        return _closed(schema, 1)
    except DepthError as exc:  # the place in the body, named only if it is too deep
        raise DepthError(exc.limit, path) from None


def _closed(schema: Any, depth: int) -> bool:
    # Each call is at least one level deeper in the JSON than its caller.
    if not isinstance(schema, dict):
        return True
    if depth > MAX_DEPTH:
        raise DepthError(MAX_DEPTH)
    depth += 1
    for key, value in schema.items():
        if key not in _SUBSCHEMA_KEYS:
            continue
        if key in _SCHEMA_MAPS:
            if isinstance(value, dict):
                for sub in value.values():
                    if not _closed(sub, depth):
                        return False
        elif key in _SCHEMA_LISTS:
            if isinstance(value, list):
                for sub in value:
                    if not _closed(sub, depth):
                        return False
        elif isinstance(value, dict) and not _closed(value, depth):
            return False
    kind = schema.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema:
        # ``==`` as the copy's comparison has it: 0 is as closed as false.
        return "additionalProperties" in schema and schema["additionalProperties"] == False  # noqa: E712
    return True


SETTINGS = (
    "seed",
    "random_seed",
    "presence_penalty",
    "frequency_penalty",
    "n",
    "user",
    "top_k",
    "reasoning_effort",
)
"""The request keys of generation settings beside the sampling ones, in wire order."""

EFFORTS = frozenset({"none", "minimal", "low", "medium", "high"})


def take_settings(found: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """The canonical settings among the wire keys ``found``; the rest goes to ``own``.

    The one reading of these keys, for the general and the fast path: a
    value of the canonical type is taken (``top_k`` with a hint, since only
    dialects send it), any other (``null``, an effort OpenAI added later) is
    kept as sent.
    """
    fields: dict[str, Any] = {}
    for key, value in found.items():
        kind = type(value)
        if key == "user":
            ok = kind is str
        elif key == "reasoning_effort":
            ok = kind is str and value in EFFORTS
        elif key in ("presence_penalty", "frequency_penalty"):
            ok = kind is int or kind is float
        else:
            ok = kind is int
        if not ok:
            own[key] = value
        elif key == "reasoning_effort":
            fields["reasoning"] = Reasoning(value)
        elif key == "random_seed":  # Mistral's spelling of the seed
            if "seed" in found:
                own[key] = value
            else:
                fields["seed"] = value
                own["~seed"] = key
        else:
            fields[key] = value
            if key == "top_k":
                own["~top_k"] = 1
    return fields


def wire_cache(own: dict[str, Any] | None) -> tuple[CachePoint | None, dict[str, Any] | None]:
    """A record's kept keys without its ``cache_control``, and the cache point it said.

    A cache point read here is marked ``~cache``: it came on this wire, and
    goes back on it whatever the model (see :mod:`._cache`).
    """
    cache, own = take_cache(own)
    if cache is not None:
        own = {**(own or {}), "~cache": 1}
    return cache, own
