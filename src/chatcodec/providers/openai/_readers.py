"""Pieces of an OpenAI Chat request, wire -> canonical, read alike by both request decoders.

The general decoder (:mod:`._decode`) and its typed fast path
(:mod:`._fastreq`) hand these values here: a content part (the fast path
reads the plain text part itself), a forced tool choice, a response format.
Each rule is written once.
"""

from __future__ import annotations

from typing import Any

from ..._content import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from ..._errors import ValidationError
from ..._exchange import ResponseFormat, ToolChoice
from ._common import ABSENT, audio_media_type, extras, opaque, rest, split_data_url, wire_cache
from ._decode_assistant import TYPE_TEXT

__all__ = ["forced", "part", "read_response_format"]

_DETAIL_LEVELS = frozenset({"auto", "low", "high"})
_TOOL = frozenset({"type", "function"})
_FORMAT_TYPES = frozenset({"text", "json_object", "json_schema"})
_JSON_SCHEMA = frozenset({"name", "schema", "strict"})


def part(p: dict[str, Any]) -> ContentPart:
    """The canonical part of one content part object; a shape it does not map is kept whole."""
    kind = p.get("type")
    try:
        if kind == "text":
            text = p.get("text")
            if type(text) is str:
                cache, own = wire_cache(rest(p, TYPE_TEXT))
                return TextPart(text, extras=extras(own), cache=cache)
        elif kind == "image_url":
            return _image(p)
        elif kind == "input_audio":
            return _audio(p)
        elif kind == "file":
            return _file(p)
        elif kind == "document_url":
            return _document(p)
    except (ValidationError, KeyError, TypeError, AttributeError):
        pass
    return opaque(p)


_IMAGE = frozenset({"type", "image_url"})
_URL = frozenset({"url", "detail"})


def _image(p: dict[str, Any]) -> ContentPart:
    own = rest(p, _IMAGE) or {}
    spec = p["image_url"]
    if type(spec) is str:
        url, detail, inner = spec, None, None
        own["~str"] = 1
    else:
        url = spec["url"]
        detail = spec.get("detail")
        inner = rest(spec, _URL) or {}
        if detail is not None and detail not in _DETAIL_LEVELS:
            inner["detail"] = detail
            detail = None
        elif detail is None and "detail" in spec:
            inner["detail"] = None
    if type(url) is not str:
        raise TypeError
    if inner:
        own["~inner"] = inner
    cache, kept = wire_cache(own)
    split = split_data_url(url)
    if split is not None:
        return ImagePart(
            data=split[1], media_type=split[0], detail=detail, extras=extras(kept), cache=cache
        )
    return ImagePart(url=url, detail=detail, extras=extras(kept), cache=cache)


_AUDIO = frozenset({"type", "input_audio"})
_AUDIO_INNER = frozenset({"data", "format"})


def _audio(p: dict[str, Any]) -> ContentPart:
    own = rest(p, _AUDIO) or {}
    spec = p["input_audio"]
    data, fmt = spec["data"], spec["format"]
    if type(data) is not str or type(fmt) is not str:
        raise TypeError
    inner = rest(spec, _AUDIO_INNER)
    if inner:
        own["~inner"] = inner
    cache, kept = wire_cache(own)
    return AudioPart(data=data, media_type=audio_media_type(fmt), extras=extras(kept), cache=cache)


_FILE = frozenset({"type", "file"})
_FILE_INNER = frozenset({"file_data", "file_id", "filename"})


def _file(p: dict[str, Any]) -> ContentPart:
    own = rest(p, _FILE) or {}
    spec = p["file"]
    inner = rest(spec, _FILE_INNER) or {}
    filename = spec.get("filename")
    if filename is not None and type(filename) is not str:
        raise TypeError
    if filename is None and "filename" in spec:
        inner["filename"] = None
    if inner:
        own["~inner"] = inner
    cache, kept = wire_cache(own)
    file_id = spec.get("file_id")
    data = spec.get("file_data")
    if type(file_id) is str and data is None:
        return FilePart(file_id=file_id, filename=filename, extras=extras(kept), cache=cache)
    if type(data) is not str or file_id is not None:
        raise TypeError
    split = split_data_url(data)
    if split is None:
        kept = {**(kept or {}), "~raw": 1}
        return FilePart(data=data, filename=filename, extras=extras(kept), cache=cache)
    return FilePart(
        data=split[1], media_type=split[0], filename=filename, extras=extras(kept), cache=cache
    )


_DOCUMENT = frozenset({"type", "document_url"})


def _document(p: dict[str, Any]) -> ContentPart:
    own = rest(p, _DOCUMENT) or {}
    own["~type"] = "document_url"
    url = p["document_url"]
    if type(url) is not str:
        raise TypeError
    cache, kept = wire_cache(own)
    split = split_data_url(url)
    if split is None:
        return FilePart(url=url, extras=extras(kept), cache=cache)
    return FilePart(data=split[1], media_type=split[0], extras=extras(kept), cache=cache)


def forced(value: dict[str, Any], key: str) -> ToolChoice | None:
    """The forced choice a ``tool_choice`` (or legacy ``function_call``) object names, or None."""
    if key == "function_call":
        if value.keys() == {"name"} and type(value["name"]) is str and value["name"]:
            return ToolChoice("tool", value["name"])
        return None
    function = value.get("function")
    if (
        value.get("type", "function") == "function"
        and value.keys() <= _TOOL
        and type(function) is dict
        and function.keys() == {"name"}
        and type(function["name"]) is str
    ):
        return ToolChoice("tool", function["name"])
    return None


def read_response_format(value: Any, own: dict[str, Any]) -> ResponseFormat | None:
    """The canonical format of a ``response_format`` value; another shape is kept in ``own``."""
    if type(value) is dict and type(value.get("type")) is str and value["type"] in _FORMAT_TYPES:
        kind = value["type"]
        outer = rest(value, frozenset({"type", "json_schema"}))
        spec = value.get("json_schema", ABSENT)
        if spec is ABSENT:
            return ResponseFormat(kind, extras=extras(outer))
        if type(spec) is dict:
            name = spec.get("name")
            schema = spec.get("schema")
            strict = spec.get("strict")
            if (
                (name is None or type(name) is str)
                and (schema is None or type(schema) is dict)
                and (strict is None or type(strict) is bool)
            ):
                inner = {k: v for k, v in spec.items() if k not in _JSON_SCHEMA or v is None}
                part_own = dict(outer) if outer else {}
                if inner:
                    part_own["~json_schema"] = inner
                if "name" not in spec:
                    part_own["~name"] = "absent"  # not named "response" on the way back
                return ResponseFormat(kind, name, schema, strict, extras=extras(part_own))
    own["response_format"] = value
    return None
