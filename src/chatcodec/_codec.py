"""The canonical codec: messages, lists and conversations to JSON and msgpack.

Data path, JSON: ``bytes -> msgspec typed decode -> records`` in one C pass,
with one reused decoder per type; an unknown field falls back to ``_unknown``
and decodes again.  msgspec checks UTF-8 in every string it decodes; inside a
``Raw`` (tool-call arguments) ``ToolCall`` checks it.  Encoding is one C pass
too.  msgpack cannot
embed JSON bytes, so there tool-call arguments travel as JSON text and the
decode goes through Python values (``_unknown.prepare_builtins``) before the
typed convert.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar, overload

import msgspec
from msgspec import Raw

from ._conversation import Conversation, Transcript
from ._errors import (
    DECODE_FAILURES,
    ChatCodecError,
    DecodeError,
    EncodeError,
    OrderingError,
    ValidationError,
    from_msgspec,
)
from ._messages import Message
from ._record import json_decoder
from ._unknown import capture_json, prepare_builtins, tags_at

__all__ = ["Format", "convert", "decode", "decode_json", "decode_msgpack", "encode"]

T = TypeVar("T")
Format = Literal["json", "msgpack"]
_UNKNOWN_FIELD = "Object contains unknown field"
# Beyond these a value has no wire form: msgspec raises them for unsupported
# types, integers past 64 bits (msgpack) and input nested too deeply.
_ENCODE_FAILURES = (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError)


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Conversation):
        return obj.to_transcript()
    raise EncodeError(f"cannot encode objects of type {type(obj).__name__}")


def _builtins_hook(obj: Any) -> Any:
    if isinstance(obj, Raw):
        return bytes(obj).decode("utf-8", "surrogateescape")
    return _enc_hook(obj)


JSON_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)
_MSGPACK_ENCODER = msgspec.msgpack.Encoder()
_MSGPACK_DECODER = msgspec.msgpack.Decoder()


def encode(obj: Any, *, format: Format = "json") -> bytes:
    """Encode a message, a list of messages, a :class:`Conversation` or any record.

    ``None`` and default fields are left out.  Tool-call arguments are written
    back byte for byte (in msgpack, as JSON text).

    Raises
    ------
    EncodeError
        If a value has no wire form (an object in ``metadata``, an integer past
        64 bits in msgpack...).

    Examples
    --------
    >>> from chatcodec import user
    >>> encode(user("Hi"))
    b'{"role":"user","content":"Hi"}'
    """
    try:
        if format == "json":
            return JSON_ENCODER.encode(obj)
        if format == "msgpack":
            return _MSGPACK_ENCODER.encode(msgspec.to_builtins(obj, enc_hook=_builtins_hook))
    except EncodeError:
        raise
    except _ENCODE_FAILURES as exc:
        raise EncodeError(f"{type(exc).__name__}: {exc}") from None
    raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")


@overload
def decode(data: bytes | str, *, format: Format = "json") -> Message: ...
@overload
def decode(data: bytes | str, *, type: type[T], format: Format = "json") -> T: ...
@overload
def decode(data: bytes | str, *, type: Any, format: Format = "json") -> Any: ...
def decode(data: bytes | str, *, type: Any = Message, format: Format = "json") -> Any:
    """Decode and validate canonical JSON or msgpack.

    Parameters
    ----------
    data : bytes or str
        The document.
    type : type, default Message
        What it holds: ``Message`` (any role), one message class,
        ``list[Message]``, :class:`Conversation`, or any record type.
    format : {"json", "msgpack"}

    Raises
    ------
    DecodeError
        If the document is not well-formed (or not UTF-8, or nested too deeply).
    ValidationError
        If it breaks a rule; the error names the path and the rule.

    Examples
    --------
    >>> decode(b'{"role": "user", "content": "Hi", "lang": "en"}')
    UserMessage(content=<2 chars>, extras=<1 keys>)
    """
    if type is Conversation:
        transcript = decode(data, type=Transcript, format=format)
        try:
            return Conversation.from_transcript(transcript)
        except OrderingError as error:
            path = f"$.messages[{error.index}]"
            raise OrderingError(error.rule, error.index, path) from None
    if format == "json":
        return decode_json(data, type)
    if format == "msgpack":
        return decode_msgpack(data, type)
    raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")


_MESSAGE_DECODER = json_decoder(Message)
_MESSAGES_DECODER = json_decoder(list[Message])


def _decoder(type_: Any) -> msgspec.json.Decoder[Any]:
    # Identity first: hashing a generic alias of a union costs more than the
    # rest of a small decode.
    if type_ is Message:
        return _MESSAGE_DECODER
    if getattr(type_, "__origin__", None) is list and type_.__args__[0] is Message:
        return _MESSAGES_DECODER
    return json_decoder(type_)


def _error(exc: Exception, type_: Any, prefix: str) -> ChatCodecError:
    """Translate a decode error; an invalid tag names the tags allowed there."""
    error = from_msgspec(exc, prefix)
    if isinstance(error, ValidationError) and error.rule == "Invalid value":
        tags = tags_at(type_, "$" + error.path[len(prefix) :])
        if tags:
            field = error.path.rpartition(".")[2]
            return ValidationError(f"{field} must be one of {', '.join(tags)}", error.path)
    return error


def decode_json(data: bytes | str | Raw, type_: Any, prefix: str = "$") -> Any:
    """Decode JSON into ``type_``, unknown fields going to ``extras``."""
    decoder = _decoder(type_)
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as exc:
        if not str(exc).startswith(_UNKNOWN_FIELD):
            raise _error(exc, type_, prefix) from None
        first = exc
    except DECODE_FAILURES as exc:
        raise _error(exc, type_, prefix) from None
    # Slow path: move unknown fields into extras and decode again.
    try:
        moved = capture_json(data, type_)
        if moved is None:
            raise first
        return decoder.decode(moved)
    except DECODE_FAILURES as exc:
        raise _error(exc, type_, prefix) from None


def decode_msgpack(data: bytes | str, type_: Any, prefix: str = "$") -> Any:
    """Decode msgpack into ``type_``, through Python values."""
    if isinstance(data, str):
        raise DecodeError(f"msgpack data must be bytes, not str - at `{prefix}`")
    try:
        values = _MSGPACK_DECODER.decode(data)
    except DECODE_FAILURES as exc:
        raise from_msgspec(exc, prefix) from None
    return convert(values, type_, prefix)


def convert(values: Any, type_: Any, prefix: str = "$") -> Any:
    """Check decoded Python values and build ``type_`` from them."""
    try:
        return msgspec.convert(prepare_builtins(values, type_, prefix), type_)
    except (msgspec.ValidationError, RecursionError) as exc:
        raise _error(exc, type_, prefix) from None
