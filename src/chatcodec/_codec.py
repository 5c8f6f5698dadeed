"""The canonical codec: messages, lists and conversations to JSON and msgpack.

Data path, JSON: ``bytes -> msgspec typed decode -> records`` in one C pass,
with one reused decoder per type; an unknown field falls back to ``_unknown``
and decodes again.  Encoding is one C pass too.  msgpack cannot embed JSON
bytes, so there tool-call arguments travel as JSON text and the decode goes
through Python values (``_unknown.prepare_builtins``) before the typed convert.

Lenient decoding repairs what it can (roles in any case, content that is a
JSON value rather than text, arguments sent as text) and reports each repair as
a warning; what stays invalid is skipped and reported as an error.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import IO, Any, Literal, NamedTuple, TypeVar, overload

import msgspec
from msgspec import Raw

from ._conversation import Conversation, Transcript
from ._errors import (
    ChatCodecError,
    DecodeError,
    EncodeError,
    OrderingError,
    ValidationError,
    from_msgspec,
)
from ._messages import Message
from ._problems import Problem
from ._record import json_decoder
from ._roles import Role
from ._tools import parse_tool_call
from ._unknown import capture_json, prepare_builtins, tags_at
from ._validate import OrderState

__all__ = [
    "Decoded",
    "Format",
    "JsonlReader",
    "decode",
    "decode_lenient",
    "encode",
    "iter_jsonl",
    "write_jsonl",
]

T = TypeVar("T")
Format = Literal["json", "msgpack"]
_UNKNOWN_FIELD = "Object contains unknown field"


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Conversation):
        return obj.to_transcript()
    raise EncodeError(f"cannot encode objects of type {type(obj).__name__}")


def _builtins_hook(obj: Any) -> Any:
    if isinstance(obj, Raw):
        return bytes(obj).decode()
    return _enc_hook(obj)


_JSON_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)
_MSGPACK_ENCODER = msgspec.msgpack.Encoder()
_MSGPACK_DECODER = msgspec.msgpack.Decoder()


def encode(obj: Any, *, format: Format = "json") -> bytes:
    """Encode a message, a list of messages, a :class:`Conversation` or any record.

    ``None`` and default fields are left out.  Tool-call arguments are written
    back byte for byte (in msgpack, as JSON text).

    Raises
    ------
    EncodeError
        If a value has no wire form (e.g. an object in ``metadata``).

    Examples
    --------
    >>> from chatcodec import user
    >>> encode(user("Hi"))
    b'{"role":"user","content":"Hi"}'
    """
    try:
        if format == "json":
            return _JSON_ENCODER.encode(obj)
        if format == "msgpack":
            return _MSGPACK_ENCODER.encode(msgspec.to_builtins(obj, enc_hook=_builtins_hook))
    except EncodeError:
        raise
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        raise EncodeError(str(exc)) from None
    raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")


@overload
def decode(data: bytes | str, *, type: type[T], format: Format = "json") -> T: ...
@overload
def decode(data: bytes | str, *, type: Any = ..., format: Format = "json") -> Any: ...
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
        If the document is not well-formed.
    ValidationError
        If it breaks a rule; the error names the path and the rule.

    Examples
    --------
    >>> decode(b'{"role": "user", "content": "Hi", "lang": "en"}')
    UserMessage(content=<2 chars>, extras=<1 keys>)
    """
    if type is Conversation:
        return Conversation.from_transcript(decode(data, type=Transcript, format=format))
    if format == "json":
        return _decode_json(data, type)
    if format == "msgpack":
        return _decode_msgpack(data, type)
    raise ValueError(f"format must be 'json' or 'msgpack', not {format!r}")


def _error(exc: Exception, type_: Any, prefix: str) -> ChatCodecError:
    """Translate a decode error; an invalid tag names the tags allowed there."""
    error = from_msgspec(exc, prefix)
    if isinstance(error, ValidationError) and error.rule == "Invalid value":
        tags = tags_at(type_, "$" + error.path[len(prefix) :])
        if tags:
            field = error.path.rpartition(".")[2]
            return ValidationError(f"{field} must be one of {', '.join(tags)}", error.path)
    return error


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


def _decode_json(data: bytes | str | Raw, type_: Any, prefix: str = "$") -> Any:
    decoder = _decoder(type_)
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as exc:
        if not str(exc).startswith(_UNKNOWN_FIELD):
            raise _error(exc, type_, prefix) from None
        first = exc
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _error(exc, type_, prefix) from None
    # Slow path: move unknown fields into extras and decode again.
    try:
        moved = capture_json(data, type_)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _error(exc, type_, prefix) from None
    if moved is None:
        raise _error(first, type_, prefix) from None
    try:
        return decoder.decode(moved)
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise _error(exc, type_, prefix) from None


def _decode_msgpack(data: bytes | str, type_: Any, prefix: str = "$") -> Any:
    if isinstance(data, str):
        raise DecodeError(f"msgpack data must be bytes, not str - at `{prefix}`")
    try:
        values = _MSGPACK_DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise from_msgspec(exc, prefix) from None
    return _convert(values, type_, prefix)


def _convert(values: Any, type_: Any, prefix: str = "$") -> Any:
    ready = prepare_builtins(values, type_, prefix)
    try:
        return msgspec.convert(ready, type_)
    except msgspec.ValidationError as exc:
        raise _error(exc, type_, prefix) from None


# -- lenient --------------------------------------------------------------------


class Decoded(NamedTuple):
    """What a lenient decode kept, and every problem it found."""

    value: Any
    problems: list[Problem]


def decode_lenient(
    data: bytes | str, *, type: Any = list[Message], format: Format = "json"
) -> Decoded:
    """Decode real-world transcripts, repairing what can be repaired.

    Repairs, each reported as a warning: a role in any case; content that is a
    JSON object, array or scalar becomes its compact JSON text (a user message
    keeps a list of parts, strings in it becoming text parts); ``null`` content
    of a tool message becomes ``""``; tool-call arguments sent as JSON text are
    checked, and what is not a JSON object becomes an ``InvalidToolCall``; a
    tool call in OpenAI's ``function`` shape is unwrapped.  A message that still
    breaks a rule is skipped and reported as an error, with its path. Nothing is
    dropped without a report.

    Parameters
    ----------
    type : ``Message``, ``list[Message]`` or ``Conversation``
        For a single message, ``value`` is ``None`` if it was skipped. For a
        conversation, a message that breaks its ordering policy is skipped too.

    Raises
    ------
    DecodeError
        If the document is not well-formed at all.

    Examples
    --------
    >>> value, problems = decode_lenient(b'[{"role": "User", "content": 42}, {"role": "user"}]')
    >>> value
    [UserMessage(content=<2 chars>)]
    >>> [str(p) for p in problems]  # doctest: +NORMALIZE_WHITESPACE
    ['warning: role was not lowercase - at `$[0].role`',
     'warning: content was a JSON value, kept as its JSON text - at `$[0].content`',
     'error: Object missing required field `content` - at `$[1]`']
    """
    if type is Conversation:
        return _lenient_conversation(data, format)
    if type is Message:
        problems: list[Problem] = []
        item = _outer(data, many=False, format=format)
        return Decoded(_lenient_message(item, "$", format, problems), problems)
    if type in (list[Message], tuple[Message, ...]):
        problems = []
        kept = _lenient_messages(_outer(data, many=True, format=format), "$", format, problems)
        return Decoded(kept if type == list[Message] else tuple(kept), problems)
    raise TypeError("decode_lenient takes Message, list[Message] or Conversation")


def _outer(data: bytes | str, *, many: bool, format: Format) -> Any:
    """Parse the envelope, leaving each message as Raw (JSON) or values (msgpack)."""
    if format == "json":
        return _decode_json(data, list[Raw] if many else Raw)
    return _decode_msgpack(data, list[Any] if many else Any)


def _lenient_messages(
    items: list[Any], path: str, format: Format, problems: list[Problem]
) -> list[Message]:
    kept = []
    for index, item in enumerate(items):
        message = _lenient_message(item, f"{path}[{index}]", format, problems)
        if message is not None:
            kept.append(message)
    return kept


def _lenient_message(
    item: Any, path: str, format: Format, problems: list[Problem]
) -> Message | None:
    try:
        if format == "json":
            return _decode_json(item, Message, path)  # type: ignore[no-any-return]
        return _convert(item, Message, path)  # type: ignore[no-any-return]
    except ChatCodecError as error:
        first = error
    try:
        values = _decode_json(item, Any, path) if format == "json" else item
    except ChatCodecError:
        problems.append(_problem(first, path))
        return None
    repairs: list[Problem] = []
    repaired = _repair(values, path, repairs)
    try:
        message: Message = _convert(repaired, Message, path)
    except ChatCodecError as error:
        problems.append(_problem(error, path))
        return None
    problems.extend(repairs)
    return message


def _problem(error: ChatCodecError, path: str) -> Problem:
    if isinstance(error, ValidationError):
        return Problem(error.path, error.rule)
    return Problem(path, str(error).rpartition(" - at ")[0] or str(error))


def _warn(problems: list[Problem], path: str, rule: str) -> None:
    problems.append(Problem(path, rule, severity="warning"))


def _compact(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def _repair(values: Any, path: str, problems: list[Problem]) -> Any:
    if not isinstance(values, dict):
        return values
    obj = dict(values)
    role = obj.get("role")
    if isinstance(role, str) and role not in Role.__members__.values():
        try:
            obj["role"] = role = Role.parse(role).value
            _warn(problems, f"{path}.role", "role was not lowercase")
        except ChatCodecError:
            pass
    content = obj.get("content")
    if role == "user" and isinstance(content, list):
        if any(isinstance(part, str) for part in content):
            obj["content"] = [
                {"type": "text", "text": p} if isinstance(p, str) else p for p in content
            ]
            _warn(problems, f"{path}.content", "text in a list of parts became text parts")
    elif isinstance(content, dict | list | bool | int | float):
        obj["content"] = _compact(content)
        _warn(problems, f"{path}.content", "content was a JSON value, kept as its JSON text")
    elif content is None and role == "tool":
        obj["content"] = ""
        _warn(problems, f"{path}.content", "missing or null content became an empty string")
    elif content is None and role == "assistant":
        obj.pop("content", None)
    if role == "assistant" and isinstance(obj.get("tool_calls"), list):
        _repair_calls(obj, path, problems)
    elif role == "assistant" and "tool_calls" in obj and obj["tool_calls"] is None:
        del obj["tool_calls"]
    return obj


def _repair_calls(obj: dict[str, Any], path: str, problems: list[Problem]) -> None:
    good: list[Any] = []
    bad: list[Any] = list(obj.get("invalid_tool_calls") or ())
    for index, call in enumerate(obj["tool_calls"]):
        where = f"{path}.tool_calls[{index}]"
        if not isinstance(call, dict):
            good.append(call)
            continue
        call = dict(call)
        function = call.get("function")
        if isinstance(function, dict) and "name" not in call:
            del call["function"]
            if call.get("type") == "function":
                del call["type"]
            call.update(name=function.get("name"), arguments=function.get("arguments"))
            _warn(problems, where, "tool call in OpenAI's function shape was unwrapped")
        arguments = call.get("arguments")
        if isinstance(arguments, str | type(None)):
            parsed = parse_tool_call(call.get("id") or "", call.get("name") or "", arguments or "")
            if hasattr(parsed, "error"):
                bad.append({**msgspec.to_builtins(parsed), **_rest(call)})
                _warn(problems, where, f"kept as an invalid tool call: {parsed.error}")
                continue
            call["arguments"] = parsed.arguments
            _warn(problems, f"{where}.arguments", "arguments were JSON text")
        good.append(call)
    obj["tool_calls"] = good
    if bad:
        obj["invalid_tool_calls"] = bad


def _rest(call: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in call.items() if k not in ("id", "name", "arguments")}


def _lenient_conversation(data: bytes | str, format: Format) -> Decoded:
    problems: list[Problem] = []
    if format == "json":
        envelope: dict[str, Any] = _decode_json(data, dict[str, Raw])
    else:
        envelope = _decode_msgpack(data, dict[str, Any])
    items = envelope.pop("messages", None)
    head = _lenient_head(envelope, format, problems)
    if format == "json" and items is not None:
        try:
            items = _decode_json(items, list[Raw], "$.messages")
        except ChatCodecError as error:
            problems.append(_problem(error, "$.messages"))
            items = None
    if items is not None and not isinstance(items, list):
        problems.append(Problem("$.messages", "must be an array"))
        items = None
    state = OrderState(head.policy)
    kept: list[Message] = []
    for index, item in enumerate(items or ()):
        message = _lenient_message(item, f"$.messages[{index}]", format, problems)
        if message is None:
            state.count += 1
            continue
        try:
            state.push(message)
        except OrderingError as error:
            problems.append(Problem(f"$.messages[{index}]", error.rule))
            state.count += 1
            continue
        kept.append(message)
    return Decoded(Conversation._checked(kept, state, head), problems)


def _lenient_head(envelope: dict[str, Any], format: Format, problems: list[Problem]) -> Transcript:
    """The conversation's own fields; what is wrong there is reported, then defaulted."""
    if "v" not in envelope:
        _warn(problems, "$.v", "no version; read as version 1")
        envelope["v"] = 1 if format == "msgpack" else Raw(b"1")
    try:
        if format == "json":
            head: Transcript = _decode_json(_JSON_ENCODER.encode(envelope), Transcript)
        else:
            head = _convert(envelope, Transcript)
    except ChatCodecError as error:
        problems.append(_problem(error, "$"))
        return Transcript(1, policy="lenient")
    return head


# -- JSONL ----------------------------------------------------------------------


class JsonlReader:
    """Iterate over the records of a JSONL stream, one line at a time.

    Memory stays bounded by the longest line. Blank lines are passed over.
    With ``lenient``, a line that cannot be decoded is skipped and reported in
    :attr:`problems` (``line`` is 1-based) and iteration goes on; otherwise the
    error is raised with the line number in its message and as ``error.line``.
    """

    def __init__(
        self, lines: Iterable[bytes | str], *, type: Any = Message, lenient: bool = False
    ) -> None:
        self._lines = lines
        self._type = type
        self._lenient = lenient
        self.problems: list[Problem] = []
        """What lenient reading skipped or repaired."""

    def __iter__(self) -> Iterator[Any]:
        for number, line in enumerate(self._lines, 1):
            if not line.strip():
                continue
            if self._lenient:
                found: list[Problem] = []
                value = self._lenient_line(line, found)
                self.problems.extend(p if p.line else _on_line(p, number) for p in found)
                if value is not None:
                    yield value
                continue
            try:
                yield decode(line, type=self._type)
            except ChatCodecError as error:
                raise _at_line(error, number) from None

    def _lenient_line(self, line: bytes | str, found: list[Problem]) -> Any:
        if self._type is Message or self._type is Conversation:
            try:
                value, problems = decode_lenient(line, type=self._type)
            except ChatCodecError as error:
                found.append(_problem(error, "$"))
                return None
            found.extend(problems)
            return value
        try:
            return decode(line, type=self._type)
        except ChatCodecError as error:
            found.append(_problem(error, "$"))
            return None


def _on_line(problem: Problem, line: int) -> Problem:
    return Problem(problem.path, problem.rule, problem.severity, line)


def _at_line(error: ChatCodecError, line: int) -> ChatCodecError:
    error.line = line  # type: ignore[attr-defined]
    error.args = (f"line {line}: {error}",)
    return error


def iter_jsonl(
    lines: Iterable[bytes | str], *, type: Any = Message, lenient: bool = False
) -> JsonlReader:
    """Read records (messages by default) from JSONL, streaming.

    ``lines`` is any iterable of lines: a file opened in binary or text mode,
    ``sys.stdin.buffer``, a list.  See :class:`JsonlReader`.

    Examples
    --------
    >>> [str(m) for m in iter_jsonl([b'{"role":"user","content":"Hi"}', b""])]
    ['user: 2 chars']
    """
    return JsonlReader(lines, type=type, lenient=lenient)


def write_jsonl(stream: IO[bytes] | IO[str], items: Iterable[Any]) -> int:
    """Write each item as one JSON line; return how many were written.

    ``stream`` may be binary or text. One buffer is reused for every line.
    """
    text = isinstance(stream, io.TextIOBase)
    buffer = bytearray()
    count = 0
    for item in items:
        try:
            _JSON_ENCODER.encode_into(item, buffer)
        except (TypeError, ValueError, msgspec.EncodeError) as exc:
            raise EncodeError(f"item {count}: {exc}") from None
        buffer.extend(b"\n")
        stream.write(buffer.decode() if text else bytes(buffer))  # type: ignore[arg-type]
        count += 1
    return count
