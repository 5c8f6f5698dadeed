"""The usual Responses API request, read into the Structs of the usual OpenAI Chat request.

msgspec decodes the usual Responses request (``instructions``; ``input`` as a
string or as items: user, system and developer messages sent as a string,
user messages of ``input_text``, ``input_image`` and ``input_file`` parts,
assistant messages sent as a string or as ``output_text`` parts without
annotations, a reasoning item without summary whose reasoning is encrypted
(each target writes or reports it as the general path does: see
:mod:`._left`), ``function_call`` items with their arguments and
``function_call_output`` items with a string output; function tools in
Responses' flat shape; the tool choice, a plain ``text`` format and the
common parameters; the keys the general path keeps as sent) straight
into the private Structs below, in C; unknown keys fail the decode. Each item
then becomes the message the general path makes of it, in the OpenAI Chat
Structs of :mod:`._source` (the run of answer and call items between two user
or tool items one assistant message, as :class:`~..openai_responses._decode_items.Run`
gathers it), so that the conversation gets the same checks and every writer
serves it. The keys the general path keeps for the Responses API are kept in
its order and reported by the writers under that family's name. Whatever
else (reasoning with a summary or a text, a built-in tool's call, a refusal, an
image ``detail``, a key a writer would have to report on an item...) goes
the general way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._exchange import Reasoning
from .._fastpath import carrier, in_wire_order
from .._wire import MAX_BODY
from ..openai_responses._common import NAME
from ..openai_responses._request import _EFFORTS
from ._source import (
    _URL,
    INSTRUCTIONS,
    Body,
    Fallback,
    FunctionSpec,
    Message,
    Part,
    Read,
    Tools,
    ToolSpec,
    _Call,
    _File,
    _Format,
    _Function,
    _messages,
    check_specs,
    once,
    runnable,
    split_tools,
)

__all__ = ["read"]


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Part(_Wire, kw_only=True):
    """A part of a user message (``input_text``, ``input_image``, ``input_file``) or an answer."""

    type: str
    text: str | UnsetType = UNSET
    annotations: list[Raw] | UnsetType = UNSET  # an answer's text's: none taken
    image_url: Raw | UnsetType = UNSET  # an image's data URL is not read into a string
    file_id: str | UnsetType = UNSET
    file_data: Raw | UnsetType = UNSET
    filename: str | UnsetType = UNSET


class _Item(_Wire, kw_only=True):
    """An input item, told apart by its ``type`` and ``role``."""

    type: str | UnsetType = UNSET
    role: str | UnsetType = UNSET
    content: str | list[_Part] | UnsetType = UNSET
    call_id: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    arguments: str | UnsetType = UNSET
    output: str | UnsetType = UNSET
    summary: list[_Part] | UnsetType = UNSET  # a reasoning item's
    encrypted_content: Any = UNSET  # a reasoning item's (see _reasoning)
    # Kept by the general path and reported by none: they place an item on OpenAI's side.
    id: Any = UNSET
    status: Any = UNSET


class _Tool(_Wire, kw_only=True):
    type: Literal["function"]
    name: str
    description: str | UnsetType | None = UNSET  # null: none, and nothing lost
    parameters: Raw
    strict: bool | UnsetType = UNSET
    defer_loading: Any = UNSET  # kept in the tool's extras by the general path: reported


class _Forced(_Wire):
    """A named tool: ``{"type": "function", "name": ...}``."""

    type: Literal["function"]
    name: str


class _Text(_Wire):
    format: _Format


class _Request(_Wire, kw_only=True):
    model: str | UnsetType = UNSET
    instructions: str | UnsetType = UNSET
    input: str | list[_Item]
    tools: Raw | UnsetType = UNSET  # checked once per array of tools (see _tools)
    tool_choice: Literal["auto", "none", "required"] | _Forced | UnsetType = UNSET
    max_output_tokens: int | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stream: bool | UnsetType = UNSET
    text: _Text | UnsetType = UNSET
    reasoning: Any = UNSET  # an effort alone is a setting: the general path reads it
    # Kept as sent by the general path, and reported by every other family.
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


_carry = carrier(
    _Request, "include", "previous_response_id", "store", "conversation", "background",
    "context_management", "metadata", "prompt_cache_key", "safety_identifier", "service_tier",
    "truncation", "max_tool_calls", "top_logprobs",
)  # fmt: skip
_decoder = msgspec.json.Decoder(_Request)
_ROLES = frozenset(("user", *INSTRUCTIONS))


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, as the usual OpenAI Chat request's, checked to be of the usual shape.

    ``model`` and ``max_tokens`` are :func:`~chatcodec.convert`'s: the model
    replaces the body's, the limit fills a gap.

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    if len(body) > MAX_BODY:
        raise Fallback  # the general path refuses it
    try:
        r = _decoder.decode(body)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        raise Fallback from None
    limit = max_tokens if r.max_output_tokens is UNSET else r.max_output_tokens
    if limit is not None and limit < 1:
        raise Fallback
    for value in (r.temperature, r.top_p):
        if value is not UNSET and not 0 <= value <= 1:
            raise Fallback  # the targets' ranges differ: their preflights decide
    kept: dict[str, Any] = {}
    _carry(r, kept)
    if len(kept) > 1:
        kept = in_wire_order(body, kept)
    messages: list[Message] = []
    reasoned: list[int] = []
    if r.instructions is not UNSET:
        if r.instructions:
            messages.append(Message(role="system", content=r.instructions))
        else:
            kept["instructions"] = ""  # kept as sent, after the others (reported)
    if isinstance(r.input, str):
        if not r.input:
            raise Fallback
        messages.append(Message(role="user", content=r.input))
    else:
        _items(r.input, messages, reasoned)
    setting: Reasoning | None = None
    reasoning = r.reasoning
    if reasoning is not UNSET:
        if type(reasoning) is dict and reasoning.keys() == {"effort"}:
            effort = reasoning["effort"]
            if type(effort) is str and effort in _EFFORTS:
                setting = Reasoning(reasoning["effort"])  # a setting, as the general path reads it
        if setting is None:
            kept["reasoning"] = reasoning
    images: list[tuple[str, Any]] = []
    arguments, names = _messages(messages, images)
    tools = None if r.tools is UNSET else _tools(r.tools)
    choice, forced = _choice(r.tool_choice, tools)
    runnable(tools, choice, arguments)
    if model is None and r.model is not UNSET:
        model = r.model
    start = 0
    while messages[start].role in INSTRUCTIONS:
        start += 1
    typed = Body(
        messages=messages,
        temperature=r.temperature,
        top_p=r.top_p,
        stream=r.stream,
        response_format=UNSET if r.text is UNSET else r.text.format,
    )
    return Read(
        typed,
        start,
        model,
        limit,
        arguments,
        names,
        images,
        tools,
        None,
        choice,
        forced,
        kept or None,
        NAME,
        setting,
        reasoned=tuple(reasoned),
    )


def _items(items: list[_Item], out: list[Message], reasoned: list[int]) -> None:
    """The messages of the input items, as the general path reads them.

    ``reasoned``: the index of each assistant message whose run opens with a
    reasoning item (see :func:`_reasoning`), which is left out of it.
    """
    texts: list[str] = []  # the open run of answers and calls: its texts and calls
    calls: list[_Call] = []
    listed = False  # the open run has an answer of parts: its texts are parts
    opened = False  # the open run opens with a reasoning item
    for item in items:
        kind = item.type
        role = item.role
        if kind == "reasoning":
            if texts or calls or opened:
                raise Fallback  # reasoning inside a run: its part is not the first
            _reasoning(item)
            opened = True
            continue
        if item.summary is not UNSET or item.encrypted_content is not UNSET:
            raise Fallback  # kept in the item's extras by the general path
        if kind is UNSET or kind == "message":
            if item.call_id is not UNSET or item.name is not UNSET:
                raise Fallback
            if item.arguments is not UNSET or item.output is not UNSET:
                raise Fallback
            content = item.content
            if role == "assistant":
                if type(content) is str and content:
                    texts.append(content)
                    # A string after a call is a part: the general path keeps a
                    # string only when it opens its run (Run.str_item).
                    listed = listed or bool(calls)
                elif type(content) is list and content:
                    texts += [_answer_text(part) for part in content]
                    listed = True
                else:
                    raise Fallback  # an empty text, or none: the general path's rules
                continue
            if role not in _ROLES or content is UNSET:
                raise Fallback
            if texts or calls or opened:
                _close(texts, calls, listed, opened, out, reasoned)
                texts, calls, listed, opened = [], [], False, False
            if isinstance(content, str):
                out.append(Message(role=role, content=content))
            elif role == "user":
                out.append(Message(role=role, content=[_part(part) for part in content]))
            else:
                raise Fallback  # instructions of parts: joined by the general path
        elif kind == "function_call":
            if role is not UNSET or item.content is not UNSET or item.output is not UNSET:
                raise Fallback
            call_id, name, arguments = item.call_id, item.name, item.arguments
            if call_id is UNSET or name is UNSET or arguments is UNSET:
                raise Fallback
            calls.append(_Call(id=call_id, type="function", function=_Function(name, arguments)))
        elif kind == "function_call_output":
            if role is not UNSET or item.content is not UNSET or item.name is not UNSET:
                raise Fallback
            if item.arguments is not UNSET or item.call_id is UNSET or item.output is UNSET:
                raise Fallback
            if texts or calls or opened:
                _close(texts, calls, listed, opened, out, reasoned)
                texts, calls, listed, opened = [], [], False, False
            out.append(Message(role="tool", tool_call_id=item.call_id, content=item.output))
        else:
            raise Fallback  # a built-in tool's call...: the general path's
    if texts or calls or opened:
        _close(texts, calls, listed, opened, out, reasoned)


def _reasoning(item: _Item) -> None:
    """Check a reasoning item: one the targets leave out, or decline it.

    The item of a reasoning model's turn sent back as the API returned it
    without a summary: no text, and its reasoning encrypted
    (``encrypted_content``), a signature only the Responses API reads. The
    general path reads it as a reasoning part without text signed by the
    Responses API, which every target leaves out or writes as an empty
    thought, and reports (see :mod:`._left`). A summary, a text, or anything
    else goes the general way.

    Raises
    ------
    Fallback
        When it is not such an item.
    """
    if item.summary != [] or type(item.encrypted_content) is not str:
        raise Fallback
    if not item.encrypted_content or item.role is not UNSET or item.content is not UNSET:
        raise Fallback
    if item.call_id is not UNSET or item.name is not UNSET:
        raise Fallback
    if item.arguments is not UNSET or item.output is not UNSET:
        raise Fallback


def _close(
    texts: list[str],
    calls: list[_Call],
    listed: bool,
    opened: bool,
    out: list[Message],
    reasoned: list[int],
) -> None:
    """Add the assistant message of a run.

    Its texts are one string when the run has one text, sent as a string
    and alone; else text parts, as the general path reads them (``listed``:
    the run has parts). ``opened``: the run opens with reasoning, left out.
    """
    if opened:
        if not texts and not calls:
            raise Fallback  # a message of reasoning alone: the targets differ
        reasoned.append(len(out))
    content: Any = UNSET
    if len(texts) == 1 and not listed and not opened:
        content = texts[0]
    elif texts:
        content = [Part(type="text", text=text) for text in texts]
    out.append(Message(role="assistant", content=content, tool_calls=calls if calls else UNSET))


def _answer_text(part: _Part) -> str:
    """The text of an answer's part: an ``output_text`` with no annotation, or decline it."""
    if part.type != "output_text" or not part.text or part.annotations:
        raise Fallback  # a refusal, an empty text, citations...: the general path's
    if part.image_url is not UNSET or part.file_id is not UNSET:
        raise Fallback
    if part.file_data is not UNSET or part.filename is not UNSET:
        raise Fallback
    return part.text


def _part(part: _Part) -> Part:
    """A user message's part, as the OpenAI Chat part the general path reads the same."""
    kind = part.type
    if part.annotations is not UNSET:
        raise Fallback  # kept in the part's extras by the general path
    if kind == "input_text":
        if part.text is UNSET or part.image_url is not UNSET or part.file_id is not UNSET:
            raise Fallback
        if part.file_data is not UNSET or part.filename is not UNSET:
            raise Fallback
        return Part(type="text", text=part.text)
    if part.text is not UNSET:
        raise Fallback
    if kind == "input_image":
        if part.image_url is UNSET or part.file_id is not UNSET or part.file_data is not UNSET:
            raise Fallback
        if part.filename is not UNSET:
            raise Fallback
        return Part(type="image_url", image_url=_URL(part.image_url))
    if kind == "input_file" and part.image_url is UNSET:
        file = _File(file_data=part.file_data, file_id=part.file_id, filename=part.filename)
        return Part(type="file", file=file)
    raise Fallback


def _choice(value: Any, tools: Tools | None) -> tuple[str | None, str | None]:
    """The tool choice's mode and the tool it names, as the general path reads them."""
    if value is UNSET:
        return None, None
    if type(value) is str:
        if value == "required" and tools is None:
            raise Fallback  # the preflights' rule: nothing to call
        return value, None
    name = value.name
    if tools is None or all(spec.function.name != name for spec in tools.specs):
        raise Fallback  # the preflights' rule: a tool that is not sent
    return "tool", name


# Each array of tools checked, by its bytes, as the OpenAI Chat source keeps its own.
_TOOLS: dict[bytes, Tools | None] = {}
_flat = msgspec.json.Decoder(list[_Tool])
_one_tool = msgspec.json.Decoder(_Tool)


def _tools(raw: Raw) -> Tools:
    key = bytes(raw)
    return once(_TOOLS, key, _check_tools, key)


def _check_tools(key: bytes) -> Tools | None:
    """The tools in the OpenAI Chat Structs, if every one is usual; else None.

    A tool of another type (a built-in tool, such as web search, a file
    search or an MCP server) is one the targets leave out and report.
    """
    try:
        flat = _flat.decode(key)
    except msgspec.ValidationError:
        return _with_built_in_tools(key)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
    return _specs(key, enumerate(flat))


def _with_built_in_tools(key: bytes) -> Tools | None:
    """The tools, built-in ones among them, if every function tool is usual; else None."""
    found = split_tools(key, _one_tool, _function)
    return None if found is None else _specs(key, *found)


def _function(kind: Any) -> bool:
    """A tool's ``type``: a function tool, or one the general path keeps as the API's own."""
    return isinstance(kind, str) and kind == "function"


def _specs(
    key: bytes, tools: Iterable[tuple[int, _Tool]], foreign: tuple[int, ...] = ()
) -> Tools | None:
    """The function tools, each by its index in the array, in the OpenAI Chat Structs."""
    specs: list[ToolSpec] = []
    extras: list[tuple[int, dict[str, Any]]] = []
    for k, t in tools:
        description = UNSET if t.description is None else t.description
        kept: dict[str, Any] = {}
        if t.defer_loading is not UNSET:
            kept["defer_loading"] = t.defer_loading
        if description == "":
            # Canonically absent, kept in the tool's extras for the way back: reported.
            kept["description"] = ""
            description = UNSET
        if kept:
            extras.append((k, {NAME: kept}))  # in the general path's order, whatever the wire's
        function = FunctionSpec(
            name=t.name, description=description, parameters=t.parameters, strict=t.strict
        )
        specs.append(ToolSpec(type="function", function=function))
    return check_specs(NAME, key, specs, tuple(extras), foreign)
