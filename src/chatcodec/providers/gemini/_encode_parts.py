"""Canonical parts, tool calls and tool results to Gemini's wire parts.

The part level of the encoder (:mod:`._encode` builds the turns around them):
text, thought and media parts (a file by URL gets the media type its extension
names), ``functionCall`` parts, and ``functionResponse`` parts, whose
``response`` is the result's text as its own JSON object when it is one, else
wrapped as ``{"result": text}`` (``{"error": text}`` for an error).
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import urlsplit

import msgspec
from msgspec import Raw

from ..._content import (
    AudioPart,
    FilePart,
    ImagePart,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._frozen import FrozenMap
from ..._loss import FOREIGN_SIGNATURE, a, block_lost
from ..._messages import ToolMessage
from ..._tools import InvalidToolCall, ToolCall
from .._cite import lose_citations
from .._wire import HINT, LITERAL, Encoding, fill, from_standard_base64, lose_if_read_valid
from ._common import B64, NAME, NO_MIME

_ABSENT: Any = object()
_decoder = msgspec.json.Decoder()
_WRAPS = frozenset(("result", "error"))
NOT_JSON = "arguments that are not JSON"
NO_FILE_ID = "a file id gemini cannot resolve"
NO_FILE_NAME = "a file name gemini has no field for"
NO_MEDIA_TYPE = "a file by URL whose media type gemini cannot tell"
_OBJECT = re.compile(rb"[ \t\r\n]*\{")
# The standard library's table (without the system's files, which vary), and
# the types Gemini takes that it lacks or spells otherwise.
_mimetypes = mimetypes.MimeTypes()
_TYPES = FrozenMap(
    {
        ".wav": "audio/wav",
        ".mp3": "audio/mp3",
        ".flac": "audio/flac",
        ".ogg": "audio/ogg",
        ".aac": "audio/aac",
        ".webp": "image/webp",
        ".heif": "image/heif",
        ".md": "text/markdown",
    }
)
_CALL_KEY = frozenset(("functionCall",))
_RESULT_KEY = frozenset(("functionResponse",))
_MEDIA_KEYS = frozenset(("inlineData", "fileData"))


def _fill(out: dict[str, Any], own: Mapping[str, Any], skip: Collection[str]) -> dict[str, Any]:
    """:func:`fill`, leaving out the keys ``skip`` (handled by the caller)."""
    for key, value in own.items():
        if key not in out and key not in skip:
            if not key.startswith(HINT):
                out[key] = value
            elif key.startswith(LITERAL) and key[1:] not in out:
                out[key[1:]] = value
    return out


def _is_json(data: bytes) -> bool:
    """Whether ``data`` is JSON that a reader can hold (no number out of range)."""
    try:
        _decoder.decode(data)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return False
    return True


def _object_reply(data: bytes) -> bool:
    """Whether a tool result's text goes as its own JSON object (not wrapped).

    It does when the text is a JSON object that reads back as itself, not as
    wrapped text (``{"result": "..."}``), and that a reader can hold: an
    object with a number out of range (``1e999``) is sent wrapped, as text.
    """
    if _OBJECT.match(data) is None:
        return False
    if not data.isascii():
        try:
            data.decode()
        except UnicodeDecodeError:
            return False
    try:
        value = _decoder.decode(data)
    except (msgspec.DecodeError, UnicodeError, RecursionError):  # ValidationError too
        return False
    return not (
        len(value) == 1 and _WRAPS.issuperset(value) and type(next(iter(value.values()))) is str
    )


def _media_type(url: str) -> str | None:
    """The media type a URL's extension names, if any."""
    try:
        path = urlsplit(url).path
    except ValueError:  # not a URL urllib can split ("http://[x"): no extension
        return None
    dot = path.rfind(".")
    if dot < 0:
        return None
    ext = path[dot:].lower()
    return _TYPES.get(ext) or _mimetypes.types_map[True].get(ext)


class _PartEncoder:
    """One encode: where losses go, the key spelling, the names of the calls."""

    __slots__ = ("enc", "k", "names")

    def __init__(self, enc: Encoding, k: Mapping[str, str]) -> None:
        self.enc = enc
        self.k = k
        self.names: dict[str, str] = {}

    # -- parts ------------------------------------------------------------

    def text(self, part: TextPart, path: str) -> dict[str, Any]:
        return fill({"text": part.text}, self.enc.own(part.extras, path))

    def opaque(self, part: OpaquePart, path: str) -> Any:
        if part.provider != NAME:
            self.enc.lose(path, block_lost(part.provider, NAME))
            return None
        return part.data

    def media(self, part: ImagePart | AudioPart | FilePart, path: str) -> Any:
        own = self.enc.own(part.extras, path)
        if type(part) is FilePart:
            if part.file_id is not None:
                self.enc.lose(path, NO_FILE_ID)
                return None
            if part.filename is not None:
                self.enc.lose(f"{path}.filename", NO_FILE_NAME)
        elif type(part) is ImagePart and part.detail is not None:
            self.enc.lose(f"{path}.detail", "an image detail gemini has no field for")
        k = self.k
        inner: dict[str, Any] = {}
        if part.media_type is not None:
            inner[k["mimeType"]] = part.media_type
        data: str | None = part.data
        url = part.url or ""
        if data is not None and "://" in data:
            url = data  # a URL where data was (OpenAI's file_data takes both)
            data = None
        if data is not None:
            kind = "inlineData"
            form = own.get(B64)
            inner["data"] = from_standard_base64(data, form) if type(form) is str else data
        else:
            header, comma, payload = url[5:].partition(",")
            if url.startswith("data:") and comma and header.endswith(";base64"):
                kind = "inlineData"
                inner[k["mimeType"]] = header[: -len(";base64")] or part.media_type
                inner["data"] = payload
            else:
                kind = "fileData"
                if part.media_type is None and NO_MIME not in own:
                    guess = _media_type(url)
                    if guess is None:
                        self.enc.lose(path, NO_MEDIA_TYPE)
                        return None
                    inner[k["mimeType"]] = guess
                inner[k["fileUri"]] = url
        extra = own.get(kind)
        if type(extra) is dict:
            fill(inner, extra)
        return _fill({k[kind]: inner}, own, _MEDIA_KEYS)

    def user_part(self, part: Any, path: str) -> Any:
        kind = type(part)
        if kind is TextPart:
            if part.citations:
                lose_citations(self.enc, part, path, "gemini grounds answers only")
            return self.text(part, path)
        if kind is ImagePart or kind is AudioPart or kind is FilePart:
            return self.media(part, path)
        if kind is OpaquePart:
            return self.opaque(part, path)
        self.enc.lose(path, f"{a(kind.__name__)} gemini cannot carry in a user turn")
        return None

    def assistant_part(self, part: Any, path: str) -> Any:
        kind = type(part)
        if kind is TextPart:
            return self.text(part, path)
        if kind is ReasoningPart:
            return self.reasoning(part, path)
        if kind is RefusalPart:
            self.enc.lose(path, "a refusal, which gemini carries as plain text")
            return fill({"text": part.text}, self.enc.own(part.extras, path))
        if kind is OpaquePart:
            return self.opaque(part, path)
        self.enc.lose(path, f"{a(kind.__name__)} gemini cannot carry in a model turn")
        return None

    def reasoning(self, part: ReasoningPart, path: str) -> Any:
        own = self.enc.own(part.extras, path)
        out: dict[str, Any] = {"text": part.text, "thought": True}
        signed = False
        if part.signature is not None:
            if part.provider == NAME:
                out[self.k["thoughtSignature"]] = part.signature
                signed = True
            else:
                self.enc.lose(f"{path}.signature", FOREIGN_SIGNATURE)
        if part.redacted is not None:
            self.enc.lose(f"{path}.redacted", "redacted reasoning gemini cannot carry")
            if not part.text and not signed:
                return None
        return fill(out, own)

    # -- tool calls and results -------------------------------------------

    def call(self, call: ToolCall, path: str) -> dict[str, Any]:
        own = self.enc.own(call.extras, path)
        self.names[call.id] = call.name
        out: dict[str, Any] = {"name": call.name}
        if own.get("~args") != "absent" or bytes(call.arguments) != b"{}":
            out["args"] = call.arguments
        hint = own.get("~id", _ABSENT)
        if hint is _ABSENT or hint == "":
            out["id"] = hint if hint == "" else call.id
        extra = own.get("functionCall")
        if type(extra) is dict:
            fill(out, extra)
        return _fill({self.k["functionCall"]: out}, own, _CALL_KEY)

    def invalid(self, call: InvalidToolCall, path: str) -> dict[str, Any]:
        lose_if_read_valid(call, path, self.enc)
        own = self.enc.own(call.extras, path)
        if call.id and call.name:
            self.names[call.id] = call.name
        out: dict[str, Any] = {}
        if call.name is not None:
            out["name"] = call.name
        if not (own.get("~args") == "absent" and call.arguments == ""):
            data = call.arguments.encode("utf-8", "surrogatepass")
            if _is_json(data):
                out["args"] = Raw(data)
            else:
                self.enc.lose(f"{path}.arguments", NOT_JSON)
                out["args"] = {}
        if call.id is not None:
            out["id"] = call.id
        extra = own.get("functionCall")
        if type(extra) is dict:
            fill(out, extra)
        return _fill({self.k["functionCall"]: out}, own, _CALL_KEY)

    def result(self, message: ToolMessage, own: Mapping[str, Any], path: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        extra = own.get("functionResponse")
        extra = extra if type(extra) is dict else {}
        if message.name is not None:
            out["name"] = message.name
        elif "name" not in extra and own.get("~name") != "absent":
            name = self.names.get(message.tool_call_id)
            if name is not None:
                out["name"] = name
        content = message.content
        media: list[Any] = []
        if isinstance(content, str):
            text = content
        else:
            text = "".join(part.text for part in content if type(part) is TextPart)
            for j, part in enumerate(content):
                if type(part) is not TextPart:
                    item = self.user_part(part, f"{path}.content[{j}]")
                    if item is not None:
                        media.append(item)
        hint = own.get("~response")
        data = text.encode("utf-8", "surrogatepass")
        if hint == "absent" and not text:
            pass
        elif (hint == "json" and _is_json(data)) or (
            hint != "wrap" and not message.is_error and _object_reply(data)
        ):
            out["response"] = Raw(data)
        else:
            out["response"] = {"error" if message.is_error else "result": text}
        hint = own.get("~id", _ABSENT)
        if hint is _ABSENT or hint == "":
            out["id"] = hint if hint == "" else message.tool_call_id
        if media:
            out["parts"] = media
        fill(out, extra)
        return _fill({self.k["functionResponse"]: out}, own, _RESULT_KEY)

    def plain_result(self, message: ToolMessage, text: str) -> dict[str, Any]:
        """:meth:`result` of a result without extras whose content is ``text``."""
        out: dict[str, Any] = {}
        name = message.name or self.names.get(message.tool_call_id)
        if name is not None:
            out["name"] = name
        data = text.encode("utf-8", "surrogatepass")
        if message.is_error:
            out["response"] = {"error": text}
        elif _object_reply(data):
            out["response"] = Raw(data)
        else:
            out["response"] = {"result": text}
        out["id"] = message.tool_call_id
        return {self.k["functionResponse"]: out}
