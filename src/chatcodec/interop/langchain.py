"""LangChain messages with v1 content blocks, to and from chatcodec's.

Needs ``langchain-core`` (``pip install 'chatcodec[langchain]'``).

========================  ====================================================
chatcodec                 LangChain
========================  ====================================================
system, developer         ``SystemMessage`` (a developer message says so in
                          ``additional_kwargs["__openai_role__"]``, as
                          langchain-openai reads it)
user                      ``HumanMessage``
assistant                 ``AIMessage``: ``content``, ``tool_calls`` (arguments
                          as a dict), ``invalid_tool_calls``
tool result               ``ToolMessage``: ``tool_call_id``, ``name``,
                          ``status="error"`` for an error, ``details`` as the
                          ``artifact``
text, image, audio, file  v1 blocks ``text``, ``image``, ``audio``, ``file``
                          (``url``, ``base64`` with ``mime_type``, or
                          ``file_id``); other fields in the block's ``extras``
reasoning                 ``{"type": "reasoning", "reasoning"}``, its
                          signature in ``extras``
any other part            ``{"type": "non_standard", "value": ...}`` holding
                          chatcodec's part
========================  ====================================================

A message's ``id`` is LangChain's ``id``; its ``metadata`` and ``extras``
travel in ``additional_kwargs["chatcodec"]``. What LangChain holds and
chatcodec has no field for (``usage_metadata``, ``response_metadata``, a
message ``name``, an ``artifact`` that is no details) is kept in the message's
``extras["langchain"]`` and written back by :func:`to_langchain`. Tool call
arguments are a dict in LangChain: they come back as compact JSON; arguments
that are no JSON object cannot be a LangChain call and are written as an
invalid call, which is reported.

Examples
--------
>>> import chatcodec as cc
>>> from chatcodec.interop.langchain import from_langchain, to_langchain
>>> call = cc.tool_call("call_1", "weather", {"city": "Paris"})
>>> history = [cc.user("Weather in Paris?"), cc.assistant(None, tool_calls=[call]),
...            cc.tool_result("call_1", "18 C", name="weather")]
>>> messages = to_langchain(history)
>>> [type(m).__name__ for m in messages]
['HumanMessage', 'AIMessage', 'ToolMessage']
>>> messages[1].tool_calls
[{'name': 'weather', 'args': {'city': 'Paris'}, 'id': 'call_1', 'type': 'tool_call'}]
>>> from_langchain(messages) == history
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .._content import (
    AudioPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
)
from .._control import UnknownPart
from .._errors import ValidationError
from .._frozen import FrozenMap
from .._loss import Loss
from .._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .._tools import InvalidToolCall, ToolCall, ToolResultDetails
from ._common import json_values, own_part

try:
    from langchain_core import messages as lc
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "chatcodec.interop.langchain needs langchain-core: pip install 'chatcodec[langchain]'"
    ) from exc

__all__ = ["NAME", "from_langchain", "to_langchain"]

NAME = "langchain"
"""The key of what LangChain holds and chatcodec has no field for, in ``extras``."""

_KEPT = "chatcodec"  # the additional_kwargs key of a message's metadata and extras
_DEVELOPER = "__openai_role__"
_ENCODE = msgspec.json.Encoder()
_DECODE = msgspec.json.Decoder()
_MEDIA_BLOCKS: FrozenMap[type[Any], str] = FrozenMap({ImagePart: "image", AudioPart: "audio"})
_OWN_MEDIA = frozenset({"url", "data", "media_type", "type"})
_NOT_A_CALL = "tool call arguments that are no JSON object: langchain keeps a call's as a dict"


def _others(part: Any, skip: frozenset[str]) -> dict[str, Any]:
    return {
        key: value
        for key, value in json_values(part).items()
        if key not in skip and value is not None
    }


def _block(part: Any) -> dict[str, Any]:
    """One canonical part as a v1 content block."""
    if type(part) is str:
        return {"type": "text", "text": part}
    kind = type(part)
    block: dict[str, Any]
    if kind is TextPart:
        block = {"type": "text", "text": part.text}
        more = _others(part, frozenset({"type", "text"}))
    elif kind is ReasoningPart:
        block = {"type": "reasoning", "reasoning": part.text}
        more = _others(part, frozenset({"type", "text"}))
    elif kind is ImagePart or kind is AudioPart or kind is FilePart:
        block = {"type": _MEDIA_BLOCKS.get(kind, "file")}
        if part.url is not None:
            block["url"] = part.url
        elif part.data is not None:
            block["base64"] = part.data
        else:
            block["file_id"] = part.file_id
        if part.media_type is not None:
            block["mime_type"] = part.media_type
        more = _others(part, _OWN_MEDIA | {"file_id"})
    else:  # no v1 block of its own: chatcodec's part, whole
        value = _DECODE.decode(part.data) if isinstance(part, UnknownPart) else json_values(part)
        return {"type": "non_standard", "value": value}
    if more:
        block["extras"] = more
    return block


def _content(content: str | tuple[Any, ...] | None) -> str | list[Any]:
    if content is None:
        return ""
    if type(content) is str:
        return content
    return [_block(part) for part in content]


def _arguments(call: ToolCall) -> Any:
    try:
        return _DECODE.decode(call.arguments)
    except msgspec.DecodeError:
        return None


def _kwargs(message: Message, **more: Any) -> dict[str, Any]:
    """LangChain's fields for what every message has, and what it kept of LangChain's."""
    fields: dict[str, Any] = {}
    if message.id is not None:
        fields["id"] = message.id
    extras = dict(message.extras or {})
    kept = extras.pop(NAME, None)
    extra_kwargs: dict[str, Any] = dict(more)
    own: dict[str, Any] = {}
    if message.metadata is not None:
        own["metadata"] = json_values(message.metadata)
    if extras:
        own["extras"] = json_values(extras)
    if own:
        extra_kwargs[_KEPT] = own
    if isinstance(kept, Mapping):
        kept = dict(kept)
        extra_kwargs.update(kept.pop("additional_kwargs", None) or {})
        fields.update(kept)
    if extra_kwargs:
        fields["additional_kwargs"] = extra_kwargs
    return fields


def _message(message: Message, path: str, losses: list[Loss] | None) -> Any:
    if isinstance(message, SystemMessage):
        return lc.SystemMessage(content=message.content, **_kwargs(message))
    if isinstance(message, DeveloperMessage):
        return lc.SystemMessage(
            content=message.content, **_kwargs(message, **{_DEVELOPER: "developer"})
        )
    if isinstance(message, UserMessage):
        return lc.HumanMessage(content=_content(message.content), **_kwargs(message))
    if isinstance(message, AssistantMessage):
        calls, invalid = [], []
        kept_calls: dict[str, Any] = {}  # a call's approval and extras, by its id
        for n, call in enumerate(message.tool_calls):
            args = _arguments(call)
            if isinstance(args, dict):
                calls.append(lc.ToolCall(name=call.name, args=args, id=call.id, type="tool_call"))
                if call.approval is not None or call.extras:
                    kept_calls[call.id] = _others(call, frozenset({"id", "name", "arguments"}))
            else:
                if losses is not None:
                    losses.append(Loss(f"{path}.tool_calls[{n}].arguments", _NOT_A_CALL))
                text = bytes(call.arguments).decode("utf-8", "replace")
                invalid.append(
                    lc.InvalidToolCall(
                        name=call.name,
                        args=text,
                        id=call.id,
                        error=_NOT_A_CALL,
                        type="invalid_tool_call",
                    )
                )
        for bad in message.invalid_tool_calls:
            invalid.append(
                lc.InvalidToolCall(
                    name=bad.name,
                    args=bad.arguments,
                    id=bad.id,
                    error=bad.error,
                    type="invalid_tool_call",
                )
            )
        more: dict[str, Any] = {}
        if message.content == "" and (message.tool_calls or message.invalid_tool_calls):
            more["content"] = ""  # an empty text, not no content: LangChain writes both as ""
        if kept_calls:
            more["calls"] = kept_calls
        kwargs = _kwargs(message)
        if more:
            kwargs.setdefault("additional_kwargs", {}).setdefault(_KEPT, {}).update(more)
        return lc.AIMessage(
            content=_content(message.content),
            tool_calls=calls,
            invalid_tool_calls=invalid,
            **kwargs,
        )
    if isinstance(message, ToolMessage):
        kwargs = _kwargs(message)
        if message.name is not None:
            kwargs["name"] = message.name
        if message.details is not None:
            kwargs["artifact"] = json_values(message.details)
        return lc.ToolMessage(
            content=_content(message.content),
            tool_call_id=message.tool_call_id,
            status="error" if message.is_error else "success",
            **kwargs,
        )
    raise ValidationError(
        "has no LangChain form: a record of a kind this version does not know", path
    )


def to_langchain(
    messages: Iterable[Message], *, losses: list[Loss] | None = None
) -> list[lc.BaseMessage]:
    """LangChain messages (v1 content blocks) for chatcodec's.

    Parameters
    ----------
    messages : iterable of Message
        A history.
    losses : list of Loss, optional
        Collects what LangChain cannot hold (a call whose arguments are no
        JSON object, written as an invalid call).

    Returns
    -------
    list of langchain_core.messages.BaseMessage

    Raises
    ------
    ValidationError
        For a record of a kind this version does not know.
    """
    return [_message(message, f"$[{n}]", losses) for n, message in enumerate(messages)]


def _part(block: Any, path: str) -> Any:
    """A canonical part from a content block (v1, or a string)."""
    if type(block) is str:
        return TextPart(block)
    if not isinstance(block, Mapping):
        raise ValidationError("must be a content block (an object) or text", path)
    kind = block.get("type")
    extras = block.get("extras")
    more = dict(extras) if isinstance(extras, Mapping) else {}
    try:
        if kind == "text":
            return msgspec.convert({"text": block.get("text"), **more}, TextPart)
        if kind == "reasoning":
            return msgspec.convert({"text": block.get("reasoning") or "", **more}, ReasoningPart)
        if kind in ("image", "audio", "file"):
            cls: type[Any] = {"image": ImagePart, "audio": AudioPart}.get(kind, FilePart)
            fields = {
                "url": block.get("url"),
                "data": block.get("base64"),
                "media_type": block.get("mime_type"),
            }
            if block.get("file_id") is not None:
                if cls is not FilePart:
                    more["kind"] = kind
                    cls = FilePart
                fields["file_id"] = block["file_id"]
            own = {key: value for key, value in more.items() if key in cls.__struct_fields__}
            rest = {key: value for key, value in more.items() if key not in cls.__struct_fields__}
            if rest:
                own["extras"] = {**(own.get("extras") or {}), NAME: rest}
            return msgspec.convert(
                {**{k: v for k, v in fields.items() if v is not None}, **own}, cls
            )
        if kind == "non_standard":
            value = block.get("value")
            return own_part(value, path)
    except (msgspec.ValidationError, ValidationError) as exc:
        raise ValidationError(f"must be a {kind} block chatcodec can hold: {exc}", path) from None
    # A block LangChain knows and chatcodec does not (video, text-plain...): kept as it was.
    return UnknownPart(_ENCODE.encode(dict(block)))


def _contents(content: Any, path: str, *, parts_only: bool = False) -> str | tuple[Any, ...]:
    if type(content) is str and not parts_only:
        return content
    if type(content) is str:
        return (TextPart(content),)
    if not isinstance(content, list):
        raise ValidationError("must be text or a list of content blocks", path)
    return tuple(_part(block, f"{path}[{n}]") for n, block in enumerate(content))


_V1 = frozenset({"text", "reasoning", "image", "audio", "file", "non_standard"})


def _v1(message: Any, path: str) -> Any:
    """The message's content as v1 blocks, text as is.

    Blocks already in the v1 form are read as they are (their ``extras``
    kept); any other (a provider's ``image_url``, ``thinking``...) makes the
    whole content go through LangChain's own translation, ``content_blocks``.

    Raises
    ------
    ValidationError
        When that translation fails on the content (a block whose ``type``
        is not a string, say), naming ``path``.
    """
    content = message.content
    if type(content) is str:
        return content
    if all(
        type(block) is str
        or (type(block) is dict and type(block.get("type")) is str and block["type"] in _V1)
        for block in content
    ):
        return content
    skipped = ("tool_call", "invalid_tool_call", "tool_call_chunk")  # read from their fields
    try:
        blocks = message.content_blocks
    except (TypeError, ValueError, KeyError, AttributeError):
        raise ValidationError("must be content blocks LangChain can read", path) from None
    return [block for block in blocks if block.get("type") not in skipped]


def _common(message: Any, path: str) -> tuple[dict[str, Any], Mapping[str, Any]]:
    """The canonical fields every message has, and what is kept of LangChain's."""
    fields: dict[str, Any] = {}
    if message.id is not None:
        fields["id"] = message.id
    extra_kwargs = dict(message.additional_kwargs or {})
    own = extra_kwargs.pop(_KEPT, None) or {}
    if not isinstance(own, Mapping):
        raise ValidationError("must be an object", f"{path}.additional_kwargs.{_KEPT}")
    if own.get("metadata") is not None:
        fields["metadata"] = own["metadata"]
    extras = dict(own.get("extras") or {})
    extra_kwargs.pop(_DEVELOPER, None)
    kept: dict[str, Any] = {}
    if extra_kwargs:
        kept["additional_kwargs"] = extra_kwargs
    if getattr(message, "name", None) is not None and not isinstance(message, lc.ToolMessage):
        kept["name"] = message.name
    for key in ("response_metadata", "usage_metadata"):
        value = getattr(message, key, None)
        if value:
            kept[key] = json_values(value)
    if kept:
        extras[NAME] = kept
    if extras:
        fields["extras"] = extras
    return fields, own


def _read(message: Any, path: str) -> Message:
    fields, own = _common(message, path)
    try:
        if isinstance(message, lc.SystemMessage):
            instruction: Any = message.content
            if type(instruction) is not str:
                parts = _contents(instruction, f"{path}.content")
                if any(type(part) is not TextPart for part in parts):
                    raise ValidationError("a system message holds text only", f"{path}.content")
                instruction = "".join(str(getattr(part, "text", "")) for part in parts)
            developer = (message.additional_kwargs or {}).get(_DEVELOPER) == "developer"
            cls: type[SystemMessage | DeveloperMessage] = (
                DeveloperMessage if developer else SystemMessage
            )
            return cls(instruction, **fields)
        if isinstance(message, lc.HumanMessage):
            at = f"{path}.content"
            return UserMessage(_contents(_v1(message, at), at), **fields)
        if isinstance(message, lc.AIMessage):
            calls = []
            for n, call in enumerate(message.tool_calls):
                at = f"{path}.tool_calls[{n}]"
                if call.get("id") is None:
                    raise ValidationError(
                        "must have an id: chatcodec pairs calls and results by it", f"{at}.id"
                    )
                call_id = str(call["id"])
                more = (own.get("calls") or {}).get(call_id) or {}
                arguments = msgspec.Raw(_ENCODE.encode(call["args"]))
                calls.append(ToolCall(call_id, call["name"], arguments, **more))
            invalid = tuple(
                InvalidToolCall(
                    id=bad.get("id"),
                    name=bad.get("name"),
                    arguments=bad.get("args") or "",
                    error=bad.get("error") or "",
                )
                for bad in message.invalid_tool_calls
            )
            content: Any = _contents(_v1(message, f"{path}.content"), f"{path}.content")
            if content == "" and (calls or invalid) and own.get("content") != "":
                content = None
            return AssistantMessage(content, tuple(calls), invalid, **fields)
        if isinstance(message, lc.ToolMessage):
            details = None
            artifact = message.artifact
            if artifact is not None:
                try:
                    details = msgspec.convert(artifact, ToolResultDetails)
                except msgspec.ValidationError:
                    extras = fields.setdefault("extras", {})
                    extras.setdefault(NAME, {})["artifact"] = json_values(artifact)
            return ToolMessage(
                message.tool_call_id,
                _contents(_v1(message, f"{path}.content"), f"{path}.content"),
                is_error=message.status == "error",
                name=message.name,
                details=details,
                **fields,
            )
    except ValidationError as exc:
        if exc.path.startswith(path):
            raise
        raise ValidationError(exc.rule, path + exc.path[1:]) from None
    raise ValidationError(f"has no chatcodec form: a LangChain {type(message).__name__}", path)


def from_langchain(messages: Iterable[lc.BaseMessage]) -> list[Message]:
    """Messages for LangChain's: chatcodec's form of each.

    Content is read through LangChain's v1 blocks (``content_blocks``), so a
    provider's own blocks (OpenAI's ``image_url``, Anthropic's ``thinking``)
    are read as LangChain standardizes them. A block chatcodec has no part
    for is kept as an :class:`~chatcodec.UnknownPart`.

    Raises
    ------
    ValidationError
        For a message chatcodec has no form for (``ChatMessage``,
        ``FunctionMessage``, ``RemoveMessage``), a call without an id, or a
        block that breaks chatcodec's rules; the path names it.
    """
    return [_read(message, f"$[{n}]") for n, message in enumerate(messages)]
