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

from ._content import TextPart
from ._control import UnknownPart, UnknownRecord, Verbatim, report_unknown
from ._conversation import Conversation, Transcript
from ._errors import (
    DECODE_FAILURES,
    ChatCodecError,
    DecodeError,
    EncodeError,
    OrderingError,
    ValidationError,
    from_msgspec,
    not_json,
)
from ._messages import Message
from ._migrate import CURRENT_VERSION, migrate, version_of
from ._paths import key_step
from ._record import json_decoder
from ._unknown import Location, capture_all, prepare_builtins, tags_at

__all__ = [
    "Format",
    "convert",
    "decode",
    "decode_json",
    "decode_msgpack",
    "encode",
    "read_transcript",
    "to_builtins",
]

T = TypeVar("T")
Format = Literal["json", "msgpack"]
_UNKNOWN_FIELD = "Object contains unknown field"
# Beyond these a value has no wire form: msgspec raises them for unsupported
# types, integers past 64 bits (msgpack) and input nested too deeply.
_ENCODE_FAILURES = (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError)


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Verbatim):
        return obj.data  # written back byte for byte
    if isinstance(obj, Conversation):
        return obj.to_transcript()
    raise EncodeError(f"cannot encode objects of type {type(obj).__name__}")


def _builtins_hook(obj: Any) -> Any:
    if isinstance(obj, Verbatim):
        return msgspec.json.decode(obj.data)
    if isinstance(obj, Raw):
        return bytes(obj).decode("utf-8", "surrogateescape")
    return _enc_hook(obj)


def encode_error(exc: Exception) -> EncodeError:
    """The :class:`EncodeError` for a failed encode, without the value's text."""
    if isinstance(exc, UnicodeError):
        # Python's message quotes the character and the text around it.
        return EncodeError("a string holds an unpaired surrogate (not UTF-8)")
    return EncodeError(f"{type(exc).__name__}: {exc}")


JSON_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)
_MSGPACK_ENCODER = msgspec.msgpack.Encoder()
_MSGPACK_DECODER = msgspec.msgpack.Decoder()


def to_builtins(obj: Any) -> Any:
    """``obj`` as plain JSON values: dicts, lists, strings, numbers, booleans, None.

    What :func:`encode` writes, read back without the types. Use it where
    ``msgspec.to_builtins`` would stop at a ``msgspec.Raw``: tool-call
    arguments come out as the JSON object they hold.

    Raises
    ------
    EncodeError
        If a value has no wire form, as for :func:`encode`.

    Examples
    --------
    >>> from chatcodec import assistant, tool_call
    >>> to_builtins(assistant(tool_calls=[tool_call("c1", "f", {"a": 1})]))
    {'role': 'assistant', 'tool_calls': [{'id': 'c1', 'name': 'f', 'arguments': {'a': 1}}]}
    """
    return msgspec.json.decode(encode(obj))


def encode(obj: Any, *, format: Format = "json") -> bytes:
    """Encode a message, a list of messages, a :class:`Conversation` or any record.

    ``None`` and default fields are left out.  Tool-call arguments are written
    back byte for byte (in msgpack, as JSON text).

    Raises
    ------
    EncodeError
        If a value has no wire form (an object in ``metadata``, an integer past
        64 bits in msgpack, a string with an unpaired surrogate...). The
        message names the problem, never the text.

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
        raise encode_error(exc) from None
    raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")


@overload
def decode(data: bytes | str, *, format: Format = "json") -> Message | UnknownRecord: ...
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
        A message of a role this version does not know (a newer version
        wrote it) decodes as an :class:`UnknownRecord` holding its bytes,
        for ``Message`` and in ``list[Message]`` as in a transcript, and is
        reported as a warning through the ``chatcodec`` logger; a known
        role in another case (``"User"``) is an error, not a newer kind.
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
            path = f"$.records[{error.index}]"
            raise OrderingError(error.rule, error.index, path) from None
    if type is Transcript:
        return read_transcript(data, format=format)[0]
    if format == "json":
        return decode_json(data, type)
    if format == "msgpack":
        return decode_msgpack(data, type)
    raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")


def read_transcript(data: bytes | str, *, format: Format = "json") -> tuple[Transcript, list[str]]:
    """Decode a stored transcript of any version, migrating it to the current one.

    Returns
    -------
    Transcript
        At the current version.
    list of str
        What each migration step did (empty when none was needed).

    Raises
    ------
    DecodeError
        If the document is not well-formed.
    ValidationError
        If it breaks a rule, or its version is not one this chatcodec reads.

    Examples
    --------
    >>> old = b'{"v":1,"messages":[{"role":"user","content":"Hi"}]}'
    >>> transcript, notes = read_transcript(old)
    >>> transcript.v, transcript.messages, notes
    (2, (UserMessage(content=<2 chars>),), ['v1 -> v2: messages renamed records'])
    """
    if format == "msgpack":
        if isinstance(data, str):
            raise DecodeError("msgpack data must be bytes, not str - at `$`")
        try:
            values = _MSGPACK_DECODER.decode(data)
        except DECODE_FAILURES as exc:
            raise from_msgspec(exc) from None
        if isinstance(values, dict) and values.get("v", CURRENT_VERSION) != CURRENT_VERSION:
            data = _as_json(prepare_builtins(values, dict[str, Any]), "$")
            format = "json"
        else:
            return convert(values, Transcript), []
    if format != "json":
        raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")
    notes: list[str] = []
    if version_of(data) != CURRENT_VERSION:
        data, notes = migrate(data)
    return decode_json(data, Transcript), notes


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
    """Decode JSON into ``type_``, unknown fields going to ``extras``.

    A record or part whose tag this version does not know becomes an
    :class:`UnknownRecord` or :class:`UnknownPart` holding its bytes, where a
    list of records or parts holds it.
    """
    decoder = _decoder(type_)
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as exc:
        if not str(exc).startswith(_UNKNOWN_FIELD) and not _bad_tag(exc, type_, prefix):
            raise _refused(exc, data, type_, prefix) from None
        first = exc
    except DECODE_FAILURES as exc:
        raise _error(exc, type_, prefix) from None
    # Slow path: move unknown fields into extras, stand in for unknown kinds,
    # and decode again.
    try:
        moved, unknown = capture_all(data, type_)
        if moved is None:
            raise first
        value = decoder.decode(moved)
    except msgspec.ValidationError as exc:
        raise _refused(exc, data, type_, prefix) from None
    except DECODE_FAILURES as exc:
        raise _error(exc, type_, prefix) from None
    for location, raw in unknown:
        value = _put(value, location, raw, prefix)
    return value


def _refused(exc: Exception, data: bytes | str | Raw, type_: Any, prefix: str) -> ChatCodecError:
    """The error for a document the types refused: a DecodeError if it is not JSON at all."""
    return not_json(data, prefix) or _error(exc, type_, prefix)


def _bad_tag(exc: msgspec.ValidationError, type_: Any, prefix: str) -> bool:
    error = from_msgspec(exc, prefix)
    return (
        isinstance(error, ValidationError)
        and error.rule == "Invalid value"
        and bool(tags_at(type_, "$" + error.path[len(prefix) :]))
    )


def _put(value: Any, location: Location, raw: Raw, path: str) -> Any:
    """``value`` with the stand-in at ``location`` swapped for the verbatim kind (reported)."""
    if not location:
        # Stand-ins for parts are text parts; for records, a control record
        # or (where only messages are taken) a system message.
        kind = UnknownPart if isinstance(value, TextPart) else UnknownRecord
        report_unknown(kind, path)
        return kind(raw)
    head, rest = location[0], location[1:]
    if isinstance(head, int):
        items = list(value)
        items[head] = _put(items[head], rest, raw, f"{path}[{head}]")
        return tuple(items) if isinstance(value, tuple) else items
    # A dict's key is the input's own: escaped (a struct's field is a name of ours).
    at = path + key_step(head) if isinstance(value, dict) else f"{path}.{head}"
    if isinstance(value, dict):
        return {**value, head: _put(value[head], rest, raw, at)}
    return msgspec.structs.replace(value, **{head: _put(getattr(value, head), rest, raw, at)})


def decode_msgpack(data: bytes | str, type_: Any, prefix: str = "$") -> Any:
    """Decode msgpack into ``type_``, through Python values."""
    if isinstance(data, str):
        raise DecodeError(f"msgpack data must be bytes, not str - at `{prefix}`")
    try:
        values = _MSGPACK_DECODER.decode(data)
    except DECODE_FAILURES as exc:
        raise from_msgspec(exc, prefix) from None
    return convert(values, type_, prefix)


def _as_json(values: Any, path: str) -> bytes:
    """Decoded msgpack values as JSON, for the paths that read JSON only.

    msgpack holds what JSON cannot (``Ext`` values, keys that are not
    strings); such a document is refused, not passed on as a ``TypeError``.
    """
    try:
        return msgspec.json.encode(values)
    except _ENCODE_FAILURES:
        rule = "must hold only JSON values (string keys, no ext types)"
        raise ValidationError(rule, path) from None


def convert(values: Any, type_: Any, prefix: str = "$") -> Any:
    """Check decoded Python values and build ``type_`` from them."""
    try:
        prepared = prepare_builtins(values, type_, prefix)
        return msgspec.convert(prepared, type_)
    except (msgspec.ValidationError, RecursionError) as exc:
        if isinstance(exc, msgspec.ValidationError) and _bad_tag(exc, type_, prefix):
            # A kind this version does not know: the JSON path keeps it verbatim.
            return decode_json(_as_json(prepared, prefix), type_, prefix)
        raise _error(exc, type_, prefix) from None
