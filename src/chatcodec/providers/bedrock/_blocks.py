"""Converse content blocks to canonical parts and back.

A Converse content block is an object with exactly one key naming its kind
(``{"text": ...}``, ``{"image": {...}}``...). The kinds with a canonical
twin become that part when their shape is the usual one: text, an image or
a document given as bytes, reasoning text with its signature, redacted
reasoning. A ``cachePoint`` block becomes the ``cache`` of what it follows
(a part, a tool call, a tool result, a system text, a tool), which the
encoder writes back as a ``cachePoint`` after it. Every other block (video,
a ``cachePoint`` after what takes none, ``guardContent``,
``citationsContent``, an image in S3...) is kept whole as an
:class:`~chatcodec.OpaquePart` in its place, so the same family gets it back
byte for byte and another family reports it as lost.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import Raw

from ..._cache import CACHE_TTLS, CachePoint
from ..._content import (
    AssistantPart,
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._frozen import FrozenMap
from ..._loss import a, block_lost, unchecked_signature
from ..._usage import FinishReason
from .._cite import lose_citations
from .._finish import READ
from .._wire import Encoding, encode_body, extras_for, fill
from ._cite import cited_blocks, cited_part

__all__ = [
    "AFTER",
    "NAME",
    "TURN",
    "assistant_block",
    "assistant_blocks",
    "assistant_part",
    "cache_block",
    "cache_point",
    "closed",
    "finish_reason",
    "opaque",
    "user_block",
    "user_part",
]

NAME = "bedrock"

IMAGE_FORMATS = frozenset(("png", "jpeg", "gif", "webp"))
DOCUMENT_TYPES = FrozenMap(
    {
        "pdf": "application/pdf",
        "csv": "text/csv",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "html": "text/html",
        "txt": "text/plain",
        "md": "text/markdown",
    }
)
DOCUMENT_FORMATS = FrozenMap({media: name for name, media in DOCUMENT_TYPES.items()})
_decode_json = msgspec.json.Decoder().decode
_NAME_RULE = re.compile(r"[^A-Za-z0-9\s\-()\[\]]|\s(?=\s)")
NAME_CHANGED = (
    "bedrock takes a document name of letters, digits, single spaces, hyphens, "
    "parentheses and brackets: the rest was written as hyphens"
)
_BYTES_SOURCE = frozenset(("bytes",))
_IMAGE_KEYS = frozenset(("format", "source"))
_DOCUMENT_KEYS = frozenset(("format", "name", "source"))
_ASIS = "~asis"  # document hint: its name was read from Bedrock, written back as it came
# Keys of a message's bedrock extras that hold wire content, not hints, so that
# another family's encoder reports them as lost: the blocks after a system text
# (cachePoint, guardContent), and the keys of a turn besides role and content.
AFTER = "systemBlocks"
TURN = "turn"
_JSON = "~json"
_BLANK = "~blank"  # an empty text block the wire had (others are left out: bedrock refuses them)


REASONS = READ[NAME]


def finish_reason(raw: str) -> FinishReason:
    """The normalized reason for a ``stopReason``."""
    return REASONS.get(raw, FinishReason.OTHER) or FinishReason.OTHER


_PLAIN = CachePoint()
_BY_TTL = FrozenMap({ttl: CachePoint(ttl=ttl) for ttl in CACHE_TTLS})
_CACHE_KEYS = frozenset(("type", "ttl"))
_CLOSABLE = frozenset((TextPart, ImagePart, FilePart))


def cache_point(block: Any) -> CachePoint | None:
    """The cache point a ``cachePoint`` block says; None for any other block or form."""
    body = block.get("cachePoint") if type(block) is dict and len(block) == 1 else None
    if type(body) is not dict or body.get("type") != "default":
        return None
    if len(body) == 1:
        return _PLAIN
    ttl = body.get("ttl")
    if len(body) == 2 and type(ttl) is str and body.keys() == _CACHE_KEYS:
        return _BY_TTL.get(ttl)
    return None


def cache_block(point: CachePoint) -> dict[str, Any]:
    """The ``cachePoint`` block written after what ``point`` closes."""
    if point.ttl is None:
        return {"cachePoint": {"type": "default"}}
    return {"cachePoint": {"type": "default", "ttl": point.ttl}}


def closed(record: Any, block: Any) -> Any:
    """``record`` closed by the ``cachePoint`` ``block`` after it; None if it cannot be.

    A part of a kind that takes no cache point (reasoning, a block kept
    whole), one that has one already, or a ``cachePoint`` of another form
    leaves the block as it is: kept whole, in its place.
    """
    if record.cache is not None:
        return None
    point = cache_point(block)
    if point is None:
        return None
    return msgspec.structs.replace(record, cache=point)


def closable(part: Any) -> bool:
    """Whether ``part`` is a part a ``cachePoint`` after it may close."""
    return type(part) in _CLOSABLE


def opaque(block: Any) -> OpaquePart:
    """A block kept whole, in its place."""
    return OpaquePart(provider=NAME, data=Raw(encode_body(block)))


def _only(block: Any) -> tuple[str, Any] | None:
    """The kind and body of a single-key block; ``None`` for any other value."""
    if type(block) is dict and len(block) == 1:
        for key, value in block.items():
            return key, value
    return None


def _bytes_source(value: Any) -> str | None:
    """The base64 text of ``{"bytes": ...}``; ``None`` for another source."""
    if type(value) is dict and value.keys() == _BYTES_SOURCE and type(value["bytes"]) is str:
        return value["bytes"]
    return None


def user_part(block: Any) -> ContentPart:
    """One block of a user turn (or of a tool result) as a part."""
    found = _only(block)
    if found is None:
        return opaque(block)
    kind, body = found
    if kind == "text" and type(body) is str:
        return TextPart(body)
    if kind == "json":
        return TextPart(encode_body(body).decode(), extras={NAME: {_JSON: True}})
    if kind == "image" and type(body) is dict and body.keys() == _IMAGE_KEYS:
        data, form = _bytes_source(body["source"]), body["format"]
        if data is not None and type(form) is str and form in IMAGE_FORMATS:
            return ImagePart(data=data, media_type=f"image/{form}")
    if kind == "document" and type(body) is dict and body.keys() >= _DOCUMENT_KEYS:
        data, form, name = _bytes_source(body["source"]), body["format"], body["name"]
        if data is not None and type(form) is str and form in DOCUMENT_TYPES and type(name) is str:
            rest = {key: value for key, value in body.items() if key not in _DOCUMENT_KEYS}
            if _NAME_RULE.search(name):
                rest[_ASIS] = 1  # a name Bedrock took beyond its documented rule: kept as sent
            return FilePart(
                data=data,
                media_type=DOCUMENT_TYPES[form],
                filename=name,
                extras=extras_for(NAME, rest or None),
            )
    return opaque(block)


def assistant_part(block: Any) -> AssistantPart:
    """One block of an assistant turn (not a ``toolUse``) as a part."""
    found = _only(block)
    if found is None:
        return opaque(block)
    kind, body = found
    if kind == "text" and type(body) is str:
        return TextPart(body) if body else TextPart(body, extras={NAME: {_BLANK: True}})
    if kind == "citationsContent":
        cited = cited_part(body)
        return cited if cited is not None else opaque(block)
    if kind == "reasoningContent":
        inner = _only(body)
        if inner is not None:
            key, value = inner
            if key == "redactedContent" and type(value) is str:
                return ReasoningPart(redacted=value, provider=NAME)
            if key == "reasoningText" and type(value) is dict and type(value.get("text")) is str:
                signature = value.get("signature")
                if value.keys() <= {"text", "signature"} and (
                    signature is None or type(signature) is str
                ):
                    if "signature" in value and signature is None:
                        return opaque(block)
                    return ReasoningPart(value["text"], signature=signature, provider=NAME)
    return opaque(block)


def _own_opaque(part: OpaquePart, enc: Encoding, path: str) -> Any:
    """The block an opaque part holds, if it is this family's; else report it."""
    if part.provider == NAME:
        return part.data  # written back byte for byte
    enc.lose(path, block_lost(part.provider, NAME))
    return None


def _data_url(url: str) -> tuple[str, str] | None:
    """The media type and base64 data of a ``data:`` URL."""
    head, sep, data = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        return None
    return head[5:-7], data


def _image(part: ImagePart, enc: Encoding, path: str) -> Any:
    data, media = part.data, part.media_type
    if data is None and part.url is not None:
        found = _data_url(part.url)
        if found is not None:
            media, data = found
    form = media.removeprefix("image/") if media else None
    if data is None or form not in IMAGE_FORMATS:
        reason = "an image by URL" if data is None else "an image of a format"
        enc.lose(path, f"{reason} bedrock does not take")
        return None
    return {"image": {"format": form, "source": {"bytes": data}}}


def _document(part: FilePart, enc: Encoding, path: str) -> Any:
    own = enc.own(part.extras, path)
    form = DOCUMENT_FORMATS.get(part.media_type or "")
    if part.data is None or form is None:
        reason = "a file by URL or id" if part.data is None else "a file of a type"
        enc.lose(path, f"{reason} bedrock does not take")
        return None
    # Bedrock takes letters, digits, single spaces, hyphens, parentheses and
    # brackets in a document's name; a name it took comes back unchanged.
    name = part.filename or ""
    if not own.get(_ASIS):
        name = _NAME_RULE.sub("-", name) or "document"
    if part.filename and name != part.filename:
        enc.lose(f"{path}.filename", NAME_CHANGED)
    return {"document": fill({"format": form, "name": name, "source": {"bytes": part.data}}, own)}


def user_block(part: ContentPart, enc: Encoding, path: str) -> Any:
    """A user (or tool result) part as a block; ``None`` when it cannot go."""
    kind = type(part)
    if kind is TextPart:
        assert isinstance(part, TextPart)
        own = enc.own(part.extras, path)
        if part.citations:
            lose_citations(enc, part, path, "bedrock has citations in answers only")
        if own.get(_JSON) is True:
            try:
                return {"json": _decode_json(part.text)}
            except msgspec.DecodeError:
                pass  # text that is no longer JSON goes as text
        return {"text": part.text}
    if kind is ImagePart:
        assert isinstance(part, ImagePart)
        return _image(part, enc, path)
    if kind is FilePart:
        assert isinstance(part, FilePart)
        return _document(part, enc, path)
    if kind is OpaquePart:
        assert isinstance(part, OpaquePart)
        return _own_opaque(part, enc, path)
    if kind is AudioPart:
        enc.lose(path, "bedrock converse takes no audio")
        return None
    enc.lose(path, f"{a(kind.__name__)} bedrock cannot carry")
    return None


def assistant_blocks(part: AssistantPart, enc: Encoding, path: str) -> list[Any]:
    """An assistant part as its blocks: one, none when it cannot go, or a cited text's."""
    if type(part) is TextPart and part.citations:
        enc.own(part.extras, path)
        return cited_blocks(part, enc, path)
    block = assistant_block(part, enc, path)
    return [] if block is None else [block]


def assistant_block(part: AssistantPart, enc: Encoding, path: str) -> Any:
    """An assistant part (without citations) as a block; ``None`` when it cannot go."""
    kind = type(part)
    if kind is TextPart:
        assert isinstance(part, TextPart)
        own = enc.own(part.extras, path)
        if not part.text and own.get(_BLANK) is not True:
            return None
        return {"text": part.text}
    if kind is ReasoningPart:
        assert isinstance(part, ReasoningPart)
        enc.own(part.extras, path)
        if part.provider not in (None, NAME) and (part.signature or part.redacted):
            enc.lose(path, unchecked_signature(part.provider, NAME))
            return None
        if part.redacted is not None:
            return {"reasoningContent": {"redactedContent": part.redacted}}
        text: dict[str, Any] = {"text": part.text}
        if part.signature is not None:
            text["signature"] = part.signature
        return {"reasoningContent": {"reasoningText": text}}
    if kind is RefusalPart:
        assert isinstance(part, RefusalPart)
        enc.lose(path, "bedrock has no refusal block; sent as text")
        return {"text": part.text}
    if kind is OpaquePart:
        assert isinstance(part, OpaquePart)
        return _own_opaque(part, enc, path)
    enc.lose(path, f"{a(kind.__name__)} bedrock cannot carry")
    return None
