"""Lenient decoding: repair what can be repaired, skip the rest, report both.

Each message is first decoded strictly (fast, exact).  Only one that fails is
taken apart into Python values, repaired, and converted again; tool-call
arguments stay :class:`msgspec.Raw` through all of it, so their bytes are never
rewritten.  Every repair is a warning and every skipped message an error in the
returned problems, each with its JSON path: nothing is dropped without a report,
and nothing the source sent is lost (fields with no place go to ``extras``).
"""

from __future__ import annotations

from typing import Any, Generic, NamedTuple, TypeVar, overload

import msgspec
from msgspec import Raw

from ._codec import Format, convert, decode_json, decode_msgpack
from ._control import UnknownPart, UnknownRecord
from ._conversation import CURRENT_VERSION, Conversation, Entry, Transcript
from ._errors import DECODE_FAILURES, ChatCodecError, OrderingError, ValidationError, from_msgspec
from ._messages import Message
from ._paths import key_step
from ._problems import Problem
from ._record import json_decoder
from ._roles import Role
from ._tools import InvalidToolCall, parse_tool_call
from ._validate import POLICIES, OrderState

__all__ = ["Decoded", "decode_lenient", "problem_of"]

T = TypeVar("T")
_ROLES = frozenset(role.value for role in Role)
_UNKNOWN_RECORD = "a record of a kind this version does not know, kept verbatim"


class Decoded(NamedTuple, Generic[T]):
    """What a lenient decode kept, and every problem it found."""

    value: T
    problems: list[Problem]


@overload
def decode_lenient(
    data: bytes | str, *, type: type[Conversation], format: Format = "json"
) -> Decoded[Conversation]: ...
@overload
def decode_lenient(
    data: bytes | str, *, type: Any = ..., format: Format = "json"
) -> Decoded[Any]: ...
def decode_lenient(
    data: bytes | str, *, type: Any = list[Message], format: Format = "json"
) -> Decoded[Any]:
    """Decode real-world transcripts, repairing what can be repaired.

    Repairs, each reported as a warning: a role in any case; content that is a
    JSON object, array or scalar becomes its compact JSON text (a user message
    keeps a list of parts, strings in it becoming text parts; a list that
    is not parts becomes its JSON text too); missing or ``null`` content of a
    tool message becomes ``""``, and so does ``null`` content of an assistant
    message without tool calls; tool-call arguments sent
    as JSON text are checked, and what is not a JSON object becomes an
    ``InvalidToolCall`` holding the text as sent; a tool call in OpenAI's
    ``function`` shape is unwrapped (its other fields go to ``extras``).  A
    message that still breaks a rule is skipped and reported as an error, with
    its path. A message of a role this version does not know (written by a
    newer one) is kept verbatim as an :class:`UnknownRecord`, with a warning.

    Parameters
    ----------
    type : ``Message``, ``list[Message]`` or ``Conversation``
        For a single message, ``value`` is ``None`` if it was skipped. For a
        conversation, a message that breaks its ordering policy is skipped too,
        and a bad version, policy or metadata is reported and defaulted.

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
    problems: list[Problem] = []
    if type is Conversation:
        return Decoded(_conversation(data, format, problems), problems)
    if type is Message:
        item = decode_json(data, Raw) if format == "json" else decode_msgpack(data, Any)
        return Decoded(lenient_message(item, "$", format, problems), problems)
    if type == list[Message] or type == tuple[Message, ...]:
        items = (
            decode_json(data, list[Raw]) if format == "json" else decode_msgpack(data, list[Any])
        )
        kept = [
            m
            for i, item in enumerate(items)
            if (m := lenient_message(item, f"$[{i}]", format, problems))
        ]
        return Decoded(kept if type == list[Message] else tuple(kept), problems)
    raise TypeError("decode_lenient takes Message, list[Message] or Conversation")


def problem_of(error: ChatCodecError, path: str) -> Problem:
    """The problem an error reports, with its path."""
    if isinstance(error, ValidationError):
        return Problem(error.path, error.rule)
    return Problem(path, str(error).rpartition(" - at ")[0] or str(error))


def lenient_message(
    item: Any, path: str, format: Format, problems: list[Problem]
) -> Message | UnknownRecord | None:
    """One message: strict first, then repaired, else skipped and reported.

    A message of a role this version does not know is kept verbatim (an
    :class:`UnknownRecord`) and reported as a warning.
    """
    try:
        if format == "json":
            message: Message | UnknownRecord = decode_json(item, Message, path)
        else:
            message = convert(item, Message, path)
    except ChatCodecError as error:
        first = error
    else:
        if isinstance(message, UnknownRecord):
            _warn(problems, path, _UNKNOWN_RECORD)
        _report_unknown_parts(message, path, problems)
        return message
    try:
        values = _values(item) if format == "json" else item
    except DECODE_FAILURES:  # deeper than the recursion limit
        problems.append(problem_of(first, path))
        return None
    repairs: list[Problem] = []
    try:
        message = convert(_repair(values, path, repairs), Message, path)
    except ChatCodecError as error:
        problems.append(problem_of(error, path))
        return None
    problems.extend(repairs)
    _report_unknown_parts(message, path, problems)
    return message


def _report_unknown_parts(message: object, path: str, problems: list[Problem]) -> None:
    content = getattr(message, "content", None)
    if isinstance(content, tuple):
        for n, part in enumerate(content):
            if isinstance(part, UnknownPart):
                rule = "a part of a kind this version does not know, kept verbatim"
                _warn(problems, f"{path}.content[{n}]", rule)


# -- taking a message apart ------------------------------------------------------------

_ANY = json_decoder(Any)
_FIELDS = json_decoder(dict[str, Raw])
_ITEMS = json_decoder(list[Raw])


def _values(raw: Raw) -> Any:
    """Decode a message to Python values, but keep tool-call arguments as Raw."""
    if not bytes(raw).lstrip().startswith(b"{"):
        return _ANY.decode(raw)
    message: dict[str, Any] = _FIELDS.decode(raw)
    for key, value in message.items():
        message[key] = _calls(value) if key == "tool_calls" else _ANY.decode(value)
    return message


def _calls(raw: Raw) -> Any:
    if not bytes(raw).lstrip().startswith(b"["):
        return _ANY.decode(raw)
    return [_call(item) for item in _ITEMS.decode(raw)]


def _call(raw: Raw) -> Any:
    if not bytes(raw).lstrip().startswith(b"{"):
        return _ANY.decode(raw)
    call: dict[str, Any] = {}
    for key, value in _FIELDS.decode(raw).items():
        if key == "arguments":
            call[key] = value
        elif key == "function" and bytes(value).lstrip().startswith(b"{"):
            function = _FIELDS.decode(value)
            call[key] = {k: v if k == "arguments" else _ANY.decode(v) for k, v in function.items()}
        else:
            call[key] = _ANY.decode(value)
    return call


# -- repairs ----------------------------------------------------------------------------


def _warn(problems: list[Problem], path: str, rule: str) -> None:
    problems.append(Problem(path, rule, severity="warning"))


def _repair(values: Any, path: str, problems: list[Problem]) -> Any:
    if not isinstance(values, dict):
        return values
    obj = dict(values)
    role = obj.get("role")
    if isinstance(role, str) and role not in _ROLES:
        try:
            obj["role"] = role = Role.parse(role).value
            _warn(problems, f"{path}.role", "role was not lowercase")
        except ChatCodecError:
            pass
    content = obj.get("content")
    if role == "user" and isinstance(content, list) and not all(map(_part_like, content)):
        # Not a list of parts: kept as its JSON text, like any other JSON value.
        try:
            obj["content"] = msgspec.json.encode(content).decode()
            _warn(problems, f"{path}.content", "content was a JSON value, kept as its JSON text")
        except (TypeError, ValueError, OverflowError):
            pass  # not JSON at all (msgpack extension types): convert reports it
    elif role == "user" and isinstance(content, list):
        if any(isinstance(part, str) for part in content):
            obj["content"] = [
                {"type": "text", "text": p} if isinstance(p, str) else p for p in content
            ]
            _warn(problems, f"{path}.content", "text in a list of parts became text parts")
    elif isinstance(content, dict | list | bool | int | float):
        try:
            obj["content"] = msgspec.json.encode(content).decode()
            _warn(problems, f"{path}.content", "content was a JSON value, kept as its JSON text")
        except (TypeError, ValueError, OverflowError):
            pass  # not JSON at all (msgpack extension types): convert reports it
    elif content is None and role == "tool":
        obj["content"] = ""
        _warn(problems, f"{path}.content", "missing or null content became an empty string")
    elif content is None and role == "assistant":
        obj.pop("content", None)
        if not obj.get("tool_calls") and not obj.get("invalid_tool_calls"):
            obj["content"] = ""
            _warn(problems, f"{path}.content", "null content without tool calls became empty text")
    if role == "assistant":
        for key in ("tool_calls", "invalid_tool_calls"):
            if key in obj and obj[key] is None:
                del obj[key]
        if isinstance(obj.get("tool_calls"), list):
            _repair_calls(obj, path, problems)
    return obj


def _part_like(item: Any) -> bool:
    """Whether ``item`` reads as a content part: text, or an object with a type."""
    return isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("type"), str))


def _repair_calls(obj: dict[str, Any], path: str, problems: list[Problem]) -> None:
    given = obj.get("invalid_tool_calls", [])
    good: list[Any] = []
    bad: list[Any] = list(given) if isinstance(given, list) else []
    for index, call in enumerate(obj["tool_calls"]):
        where = f"{path}.tool_calls[{index}]"
        if not isinstance(call, dict):
            good.append(call)
            continue
        call = dict(call)
        function = call.get("function")
        if isinstance(function, dict) and "name" not in call and "arguments" not in call:
            rest = {k: v for k, v in function.items() if k not in ("name", "arguments")}
            call.update(name=function.get("name"), arguments=function.get("arguments"))
            if rest:
                call["function"] = rest  # no home in a tool call: it goes to extras
            else:
                del call["function"]
            _warn(problems, where, "tool call in OpenAI's function shape was unwrapped")
        invalid = _arguments(call, where, problems)
        if invalid is None:
            good.append(call)
        else:
            bad.append(_invalid_entry(call, invalid))
            _warn(problems, where, f"kept as an invalid tool call: {invalid.error}")
    obj["tool_calls"] = good
    if bad:
        obj["invalid_tool_calls"] = bad


def _arguments(call: dict[str, Any], where: str, problems: list[Problem]) -> InvalidToolCall | None:
    """Make ``call["arguments"]`` a JSON-object Raw, or say why it cannot be."""
    arguments = call.get("arguments")
    call_id, name = call.get("id"), call.get("name")
    ids = (call_id if isinstance(call_id, str) else "", name if isinstance(name, str) else "")
    if isinstance(arguments, Raw):
        text = bytes(arguments)
        arguments = None
        if text.lstrip().startswith(b'"'):  # a JSON string holding the JSON text
            try:
                arguments = _ANY.decode(text)
            except DECODE_FAILURES:  # not UTF-8 inside: parse_tool_call says so
                arguments = None
        if arguments is None:
            parsed = parse_tool_call(*ids, text)
            return parsed if isinstance(parsed, InvalidToolCall) else None
    if isinstance(arguments, str) or arguments is None:
        parsed = parse_tool_call(*ids, arguments or "")
        if isinstance(parsed, InvalidToolCall):
            return parsed
        call["arguments"] = parsed.arguments
        _warn(problems, f"{where}.arguments", "arguments were JSON text")
    elif isinstance(arguments, dict):
        _warn(problems, f"{where}.arguments", "arguments were decoded values, encoded again")
    return None


def _invalid_entry(call: dict[str, Any], invalid: InvalidToolCall) -> dict[str, Any]:
    entry = {k: v for k, v in call.items() if k not in ("id", "name", "arguments")}
    # What the source sent under our own field names goes to extras, not over ours.
    moved = {k: entry.pop(k) for k in ("error", "extras") if k in entry}
    given = moved.pop("extras", None)
    extras = {**(given if isinstance(given, dict) else {"extras": given} if given else {}), **moved}
    entry.update(msgspec.to_builtins(invalid))
    if extras:
        entry["extras"] = extras
    return entry


# -- conversations ----------------------------------------------------------------------


def _conversation(data: bytes | str, format: Format, problems: list[Problem]) -> Conversation:
    if format == "json":
        fields = decode_json(data, dict[str, Raw])
        envelope = {}
        for key, value in fields.items():
            try:
                if key not in _LISTS:
                    envelope[key] = _ANY.decode(value)
            except DECODE_FAILURES as exc:
                problems.append(problem_of(from_msgspec(exc), "$" + key_step(key)))
        name = "records" if "records" in fields or "messages" not in fields else "messages"
        items: Any = fields.get(name)
        if items is not None and bytes(items).lstrip().startswith(b"["):
            items = _ITEMS.decode(items)
    else:
        envelope = decode_msgpack(data, dict[str, Any])
        name = "records" if "records" in envelope or "messages" not in envelope else "messages"
        items = envelope.pop(name, None)
        envelope.pop("messages" if name == "records" else "records", None)
    if name == "messages":
        _warn(problems, "$.messages", "a version 1 transcript: messages read as records")
        envelope["v"] = CURRENT_VERSION if envelope.get("v") == 1 else envelope.get("v")
    head = _head(envelope, problems)
    if items is not None and not isinstance(items, list):
        problems.append(Problem(f"$.{name}", "must be an array"))
        items = None
    state = OrderState(head.policy)
    kept: list[Entry | UnknownRecord] = []
    for index, item in enumerate(items or ()):
        path = f"$.{name}[{index}]"
        entry = _entry(item, path, format, problems)
        if entry is None:
            continue
        try:
            state.push(entry)
        except OrderingError as error:
            problems.append(Problem(path, error.rule))
            continue
        kept.append(entry)
    return Conversation._checked(kept, state, head)


_LISTS = frozenset({"records", "messages"})


def _entry(
    item: Any, path: str, format: Format, problems: list[Problem]
) -> Entry | UnknownRecord | None:
    """A record as is (control records, kinds this version does not know), else a message."""
    try:
        entry = decode_json(item, Entry, path) if format == "json" else convert(item, Entry, path)
    except ChatCodecError:
        return lenient_message(item, path, format, problems)
    if isinstance(entry, UnknownRecord):
        _warn(problems, path, _UNKNOWN_RECORD)
    else:
        for n, part in enumerate(getattr(entry, "content", None) or ()):
            if isinstance(part, UnknownPart):
                _warn(
                    problems,
                    f"{path}.content[{n}]",
                    "a part of a kind this version does not know, kept verbatim",
                )
    return entry  # type: ignore[no-any-return]


def _head(envelope: dict[str, Any], problems: list[Problem]) -> Transcript:
    """The conversation's own fields: each bad one is reported, then defaulted."""
    fields = dict(envelope)
    version = fields.pop("v", None)
    if version is None:
        _warn(problems, "$.v", f"no version; read as version {CURRENT_VERSION}")
    elif version != CURRENT_VERSION or type(version) is not int:
        _warn(problems, "$.v", f"unsupported version; read as version {CURRENT_VERSION}")
        fields["v"] = version  # kept under extras
    policy = fields.pop("policy", "strict")
    if policy not in POLICIES:
        _warn(
            problems,
            "$.policy",
            "policy must be 'strict', 'provider' or 'lenient'; read as lenient",
        )
        fields["policy"] = policy
        policy = "lenient"
    metadata = fields.pop("metadata", None)
    if metadata is not None and not isinstance(metadata, dict):
        _warn(problems, "$.metadata", "must be an object; kept under extras")
        fields["metadata"] = metadata
        metadata = None
    given = fields.pop("extras", None)
    extras = given if isinstance(given, dict) else {}
    if given is not None and not isinstance(given, dict):
        _warn(problems, "$.extras", "must be an object; kept under extras")
        fields["extras"] = given
    for key, value in fields.items():
        if key in extras:
            _warn(problems, "$" + key_step(key), "also in extras; the value in extras was kept")
        else:
            extras[key] = value
    return Transcript(CURRENT_VERSION, (), policy, metadata, extras=extras or None)
