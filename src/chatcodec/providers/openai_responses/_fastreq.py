"""The fast path of the request decoder: typed wire Structs for the usual requests.

The usual Responses request (``instructions``, ``input`` as a string or as
items: user, system and developer messages of text, images and files,
assistant messages sent as a string, ``function_call`` and
``custom_tool_call`` items, their outputs, ``reasoning`` items with their
summary and encrypted content; the common parameters) decodes straight into
the private Structs below, every item into one flat Struct told apart by its
``type`` and ``role``, and maps to the canonical form without a scan of
leftover keys. It is also what ``convert`` reads back from its own output
for the preflight. The assistant side is gathered by the general path's own
:class:`~._decode_items.Run`; tools, the tool choice, ``text`` and
``reasoning`` are read by the general path's own functions. Anything else (a
key the Structs do not name, an item of another kind, an assistant message
of parts, a value only the general path keeps) fails the typed decode or is
declined here, and the caller takes the general path
(:mod:`._request`), which gives the same result.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from ..._content import AssistantPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ..._exchange import Request, Tool
from ..._messages import DeveloperMessage, Message, SystemMessage, ToolMessage, UserMessage
from .._fastpath import GIVE_UP, carrier, in_wire_order
from ..openai._common import split_data_url
from . import _request as general  # its readers of tools, tool choice, text and reasoning
from ._common import NAME, SUMMARY_JOIN, encode_json, extras, summary_lengths
from ._decode_items import Run, _item_keys

__all__ = ["fast_request"]


class _Decline(Exception):
    """A value the typed decode accepts but only the general path maps."""


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Part(_Wire, kw_only=True):
    """A content part of a message or an output, told apart by its ``type``."""

    type: str
    text: str | UnsetType = UNSET
    image_url: str | UnsetType = UNSET
    detail: Literal["auto", "low", "high"] | UnsetType = UNSET
    file_id: str | UnsetType = UNSET
    file_url: str | UnsetType = UNSET
    file_data: str | UnsetType = UNSET
    filename: str | UnsetType = UNSET


class _Summary(_Wire, tag_field="type", tag="summary_text"):
    text: str


class _Item(_Wire, kw_only=True):
    """An input item, told apart by its ``type`` and ``role``."""

    type: str | UnsetType = UNSET
    role: str | UnsetType = UNSET
    content: str | list[_Part] | UnsetType = UNSET
    call_id: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    arguments: str | UnsetType = UNSET
    input: str | UnsetType = UNSET
    output: str | list[_Part] | UnsetType = UNSET
    summary: list[_Summary] | UnsetType = UNSET
    encrypted_content: str | UnsetType = UNSET
    # Kept as sent in the record's extras, as the general path keeps them.
    id: Any = UNSET
    status: Any = UNSET
    namespace: Any = UNSET
    phase: Any = UNSET


class _Request(_Wire, kw_only=True):
    model: str | UnsetType = UNSET
    instructions: str | UnsetType = UNSET
    input: str | list[_Item] | UnsetType = UNSET
    tools: list[dict[str, Any]] | UnsetType = UNSET
    tool_choice: Any = UNSET
    parallel_tool_calls: bool | UnsetType = UNSET
    max_output_tokens: int | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stream: bool | UnsetType = UNSET
    text: Any = UNSET
    user: str | UnsetType = UNSET
    reasoning: Any = UNSET
    # Kept as sent, in extras.
    include: Any = UNSET
    previous_response_id: Any = UNSET
    store: Any = UNSET
    conversation: Any = UNSET
    background: Any = UNSET
    context_management: Any = UNSET
    metadata: Any = UNSET
    prompt_cache_key: Any = UNSET
    safety_identifier: Any = UNSET
    service_tier: Any = UNSET
    truncation: Any = UNSET
    max_tool_calls: Any = UNSET
    top_logprobs: Any = UNSET


_decoder = msgspec.json.Decoder(_Request)
_carry = carrier(
    _Request, "include", "previous_response_id", "store", "conversation", "background",
    "context_management", "metadata", "prompt_cache_key", "safety_identifier", "service_tier",
    "truncation", "max_tool_calls", "top_logprobs",
)  # fmt: skip
_carry_item = carrier(_Item, "id", "status", "namespace", "phase")


def fast_request(body: bytes | str) -> Request | None:
    """The canonical request of ``body`` if it has the usual shape, else None.

    None also for a body that is not JSON: the general path raises the error.
    """
    try:
        r = _decoder.decode(body)
        own: dict[str, Any] = {}
        _carry(r, own)
        own = in_wire_order(body, own)
        messages: list[Message] = []
        instructions = r.instructions
        if type(instructions) is str:
            if instructions:
                messages.append(SystemMessage(instructions))
            else:
                own["instructions"] = instructions
        wire = r.input
        if type(wire) is str:
            if wire:
                messages.append(UserMessage(wire))
                own["~input"] = "str"
            else:
                own["input"] = wire
        elif type(wire) is list:
            if wire:
                _items(wire, messages)
            else:
                own["~input"] = "list"
        tools: tuple[Tool, ...] = ()
        if r.tools is not UNSET:
            if r.tools:
                read = general._tool
                tools = tuple([read(t, f"$.tools[{i}]") for i, t in enumerate(r.tools)])
            else:
                own["tools"] = []
        choice = None
        if r.tool_choice is not UNSET:
            choice = general._tool_choice({"tool_choice": r.tool_choice}, own)
        response_format = None
        if r.text is not UNSET:
            response_format = general._text_format({"text": r.text}, own)
        reasoning = None
        if r.reasoning is not UNSET:
            reasoning = general._reasoning({"reasoning": r.reasoning}, own)
        return Request(
            tuple(messages),
            None if r.model is UNSET else r.model,
            tools,
            choice,
            None if r.parallel_tool_calls is UNSET else r.parallel_tool_calls,
            None if r.max_output_tokens is UNSET else r.max_output_tokens,
            None if r.temperature is UNSET else r.temperature,
            None if r.top_p is UNSET else r.top_p,
            None,
            None if r.stream is UNSET else r.stream,
            response_format,
            user=None if r.user is UNSET else r.user,
            reasoning=reasoning,
            extras=extras(own),
        )
    except (*GIVE_UP, _Decline):
        return None


def _items(items: list[_Item], out: list[Message]) -> None:
    """The messages of the input items, as :func:`._decode_items.read_items` reads them."""
    run = Run()
    for item in items:
        kind = item.type
        role = item.role
        if (kind is UNSET or kind == "message") and role is not UNSET and role != "assistant":
            message = _plain(item, role)
        elif kind == "function_call_output" or kind == "custom_tool_call_output":
            message = _output(item, kind)
        else:
            _model_item(item, kind, role, run)
            continue
        if run:
            out.append(run.message())
            run = Run()
        out.append(message)
    if run:
        out.append(run.message())


def _own(item: _Item) -> dict[str, Any]:
    """An item's keys the general path keeps as sent (its ``rest``)."""
    own: dict[str, Any] = {}
    if (
        item.id is not UNSET
        or item.status is not UNSET
        or item.namespace is not UNSET
        or item.phase is not UNSET
    ):
        _carry_item(item, own)
        if len(own) > 1:
            # The general path keeps them in the item's order, which the Struct lost.
            raise _Decline
    return own


def _only(item: _Item, *fields: str) -> None:
    """Decline an item that has a field other than ``fields`` (and the kept ones)."""
    if item.role is not UNSET and "role" not in fields:
        raise _Decline
    for name in ("content", "call_id", "name", "arguments", "input", "output", "summary"):
        if name not in fields and getattr(item, name) is not UNSET:
            raise _Decline
    if "encrypted_content" not in fields and item.encrypted_content is not UNSET:
        raise _Decline


def _plain(item: _Item, role: str) -> Message:
    """A user, system or developer message item."""
    _only(item, "role", "content")
    own = _own(item)
    if item.type is not UNSET:
        own = {"type": item.type, **own}
    content: Any = item.content
    if role == "user":
        if type(content) is str and content:
            return UserMessage(content, extras=extras(own))
        if type(content) is list and content:
            return UserMessage(_parts(content), extras=extras(own))
        raise _Decline  # kept opaque by the general path
    if role == "system":
        kind: type[SystemMessage] | type[DeveloperMessage] = SystemMessage
    elif role == "developer":
        kind = DeveloperMessage
    else:
        raise _Decline
    own["~input"] = 1
    if type(content) is str and content:
        return kind(content, extras=extras(own))
    if type(content) is list and content:
        texts = []
        for part in content:
            if part.type != "input_text" or part.text is UNSET or _has_media(part):
                raise _Decline
            texts.append(part.text)
        joined = "".join(texts)
        if joined:
            own["~parts"] = [len(text) for text in texts]
            return kind(joined, extras=extras(own))
    raise _Decline


def _has_media(part: _Part) -> bool:
    return not (
        part.image_url is UNSET
        and part.detail is UNSET
        and part.file_id is UNSET
        and part.file_url is UNSET
        and part.file_data is UNSET
        and part.filename is UNSET
    )


def _parts(content: list[_Part]) -> tuple[ContentPart, ...]:
    """The parts of a user message or a tool output."""
    out: list[ContentPart] = []
    for part in content:
        kind = part.type
        if kind == "input_text" and part.text is not UNSET and not _has_media(part):
            out.append(TextPart(part.text))
        elif kind == "input_image":
            out.append(_image(part))
        elif kind == "input_file":
            out.append(_file(part))
        else:
            raise _Decline  # kept opaque by the general path
    return tuple(out)


def _image(part: _Part) -> ImagePart:
    url = part.image_url
    if (
        url is UNSET
        or part.text is not UNSET
        or part.file_id is not UNSET
        or part.file_url is not UNSET
        or part.file_data is not UNSET
        or part.filename is not UNSET
    ):
        raise _Decline
    own: dict[str, Any] = {}
    detail = part.detail
    if detail is UNSET:
        own["~detail"] = 1
    split = split_data_url(url)
    if split is not None:
        own["~url"] = 1
        return ImagePart(
            data=split[1],
            media_type=split[0],
            detail=None if detail is UNSET else detail,
            extras=extras(own),
        )
    return ImagePart(url=url, detail=None if detail is UNSET else detail, extras=extras(own))


def _file(part: _Part) -> FilePart:
    if part.text is not UNSET or part.image_url is not UNSET or part.detail is not UNSET:
        raise _Decline
    filename = None if part.filename is UNSET else part.filename
    sources = [
        value for value in (part.file_id, part.file_url, part.file_data) if value is not UNSET
    ]
    if len(sources) != 1:
        raise _Decline
    if part.file_id is not UNSET:
        return FilePart(file_id=part.file_id, filename=filename)
    if part.file_url is not UNSET:
        return FilePart(url=part.file_url, filename=filename)
    data = part.file_data
    assert data is not UNSET
    split = split_data_url(data)
    if split is not None:
        return FilePart(
            data=split[1], media_type=split[0], filename=filename, extras=extras({"~url": 1})
        )
    return FilePart(data=data, filename=filename)


def _output(item: _Item, kind: str) -> ToolMessage:
    """A function or custom tool call's output item."""
    _only(item, "call_id", "output")
    call_id = item.call_id
    if type(call_id) is not str or not call_id:
        raise _Decline
    own = _own(item)
    if kind == "custom_tool_call_output":
        own["~custom"] = 1
    output: Any = item.output
    content: str | tuple[ContentPart, ...]
    if type(output) is str:
        content = output
    elif type(output) is list:
        content = _parts(output)
        own["~output"] = "parts"
    else:
        raise _Decline
    return ToolMessage(call_id, content, extras=extras(own))


def _model_item(item: _Item, kind: Any, role: Any, run: Run) -> None:
    """An item the model made, added to ``run`` as :func:`._decode_items.model_item` adds it."""
    if (kind is UNSET or kind == "message") and role == "assistant":
        _assistant(item, run)
    elif kind == "function_call" or kind == "custom_tool_call":
        _call(item, kind, run)
    elif kind == "reasoning":
        _only(item, "summary", "encrypted_content")
        own = _own(item)
        texts: list[str] = []
        if item.summary is UNSET:
            own["~summary"] = None
        else:
            texts = [s.text for s in item.summary]
            summary_lengths(texts, own)
        signature = None if item.encrypted_content is UNSET else item.encrypted_content
        part: AssistantPart = ReasoningPart(
            SUMMARY_JOIN.join(texts), signature=signature, provider=NAME, extras=extras(own)
        )
        run.content([part])
    else:
        raise _Decline  # kept opaque by the general path


def _assistant(item: _Item, run: Run) -> None:
    """An assistant message item sent with a string (one of parts is left to the general path)."""
    _only(item, "role", "content")
    content = item.content
    if type(content) is not str:
        raise _Decline
    item_own = _own(item)
    if item.type is not UNSET:
        item_own = {"type": item.type, **item_own}
    if not run and run.str_item is None:
        run.str_item = (content, item_own)
    own = _item_keys(item_own, {})
    own["~item"]["~str"] = 1
    run.content([TextPart(content, extras=extras(own))])


def _call(item: _Item, kind: str, run: Run) -> None:
    call_id, name = item.call_id, item.name
    if type(call_id) is not str or not call_id or type(name) is not str or not name:
        raise _Decline
    own = _own(item)
    arguments: str | bytes
    if kind == "custom_tool_call":
        _only(item, "call_id", "name", "input")
        text = item.input
        if type(text) is not str:
            raise _Decline
        own["~custom"] = 1
        arguments = encode_json({"input": text})
    else:
        _only(item, "call_id", "name", "arguments")
        raw = item.arguments
        if type(raw) is not str:
            raise _Decline
        arguments = raw
    if not run.call(call_id, name, arguments, own):
        raise _Decline  # a name a tool call may not have: kept opaque
