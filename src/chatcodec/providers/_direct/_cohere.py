"""A usual OpenAI Chat request written straight as a Cohere v2 Chat request.

What :func:`chatcodec.providers.cohere.encode_request` writes for the
canonical form of such a request, without building that form: each message
one message (an instruction a ``system`` one), a user's parts as ``text``
and ``image_url`` items, an answer its calls before its text, the tools with
one ``strict_tools`` switch, the settings under Cohere's names; a named tool
choice is sent as ``"REQUIRED"`` and a tool's ``strict`` among loose tools is
left out, each reported, as the general path reports them. Tool-call
arguments and image URLs go through as the bytes they were sent as.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import UNSET, Raw

from ..._frozen import FrozenMap
from ..._loss import Loss
from .._models import foreign_model
from .._wire import Encoding, encode_body
from ..cohere._common import data_url
from ..cohere._encode import thinking
from ._source import NOT_JSON, Fallback, Message, Read, Tools, kept_losses, once, tool_losses

__all__ = ["write"]

NAME = "cohere"
# The general encoder's words (cohere/_encode.py).
NOT_NAMED = "cohere cannot force one named tool: sent as REQUIRED"
ONE_SWITCH = "cohere's strict_tools is one switch for every tool"
NO_FILE = "cohere cannot carry a file part in a user message"
_CHOICES = FrozenMap({"none": "NONE", "required": "REQUIRED", "tool": "REQUIRED"})
# Cohere's documented range of ``p`` (its preflight's rule).
_P_LOW, _P_HIGH = 0.01, 0.99


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The Cohere body, and what it could not carry.

    Raises
    ------
    Fallback
        When Cohere's preflight would find a problem the shape check does
        not rule out (no model, another family's model, a ``top_p`` out of
        Cohere's range), or the request holds what Cohere leaves out with
        a warning (a file).
    """
    body = r.body
    if not r.model or foreign_model(r.model, NAME) is not None:
        raise Fallback
    top_p = body.top_p
    if top_p is not UNSET and not _P_LOW <= top_p <= _P_HIGH:
        raise Fallback
    tools = None if r.tools is None or not r.tools.specs else _tools(r.tools)
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {"model": r.model, "messages": _messages(r, losses)}
    tool_losses(r, NAME, losses)  # after the messages, each tool's before the strict switch
    if tools is not None:
        out["tools"], strict = tools
        if strict is True:
            out["strict_tools"] = True
        elif strict:
            losses += (Loss(f"$.tools[{k}].strict", ONE_SWITCH) for k in strict)
    fmt = body.response_format
    if fmt is not UNSET:
        out["response_format"] = {"type": fmt.type}
    if r.max_tokens is not None:
        out["max_tokens"] = r.max_tokens
    if r.stop is not None:
        out["stop_sequences"] = r.stop
    if body.temperature is not UNSET:
        out["temperature"] = body.temperature
    if top_p is not UNSET:
        out["p"] = top_p
    choice = r.choice
    if choice is not None and choice != "auto":
        if choice == "tool":
            losses.append(Loss("$.tool_choice.name", NOT_NAMED))
        out["tool_choice"] = _CHOICES[choice]
    if r.reasoning is not None:
        out["thinking"] = thinking(r.reasoning, Encoding(NAME, losses))
    if body.stream is not UNSET:
        out["stream"] = body.stream
    return encode_body(out), losses


def _messages(r: Read, losses: list[Loss]) -> list[Any]:
    messages = r.body.messages
    arguments = r.arguments
    images = iter(r.images)
    out: list[Any] = []
    append = out.append
    for k in range(len(messages)):
        m = messages[k]
        role = m.role
        if role == "user":
            content = m.content
            if type(content) is not str:
                content = _user(content, images, k, losses)
            append({"role": "user", "content": content})
        elif role == "tool":
            append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        elif role == "assistant":
            append(_assistant(m, arguments))
        else:  # an instruction: a developer's too, as Cohere has no such role
            append({"role": "system", "content": m.content})
    return out


def _user(content: Any, images: Iterator[tuple[str, Any]], k: int, losses: list[Loss]) -> list[Any]:
    items: list[Any] = []
    for j, part in enumerate(content):
        kind = part.type
        if kind == "text":
            items.append({"type": "text", "text": part.text})
            continue
        media_type, data = next(images)
        if kind != "image_url":  # a file, or a document by URL
            losses.append(Loss(f"$.messages[{k}].content[{j}]", NO_FILE))
            continue
        # As sent when read as sent (see _source.image), else as the general path joins it.
        url = (
            part.image_url.url
            if type(data) is Raw or not media_type
            else data_url(media_type, data)
        )
        items.append({"type": "image_url", "image_url": {"url": url}})
    return items


def _assistant(m: Message, arguments: dict[str, Raw]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant"}
    calls = m.tool_calls
    if calls is not UNSET:
        wire: list[Any] = []
        late: list[Any] = []  # invalid calls: after the others, as the general path orders them
        for c in calls:
            data = arguments[c.id]
            f = c.function
            if data is NOT_JSON:
                fn = {"name": f.name, "arguments": f.arguments}
                late.append({"id": c.id, "type": "function", "function": fn})
            else:
                text = bytes(data).decode()  # the JSON as read, without the spaces around it
                wire.append(
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": f.name, "arguments": text},
                    }
                )
        if wire or late:
            out["tool_calls"] = wire + late
    content = m.content
    thinking = m.reasoning_content if m.reasoning_content is not UNSET else m.reasoning
    if thinking is not UNSET:  # a thinking item before the text, in a list
        items: list[Any] = [{"type": "thinking", "thinking": thinking}]
        if type(content) is str:
            items.append({"type": "text", "text": content})
        elif type(content) is list:
            items += ({"type": "text", "text": part.text} for part in content)
        out["content"] = items
    elif type(content) is str:
        out["content"] = content
    elif type(content) is list:  # [] beside calls too, as the general path writes it
        out["content"] = [{"type": "text", "text": part.text} for part in content]
    return out


def _tools(tools: Tools) -> tuple[Raw, bool | tuple[int, ...]]:
    """The tools as Cohere takes them, and their strictness, written once per array.

    The strictness: True when every tool is strict (one ``strict_tools``
    switch), else the indexes of the strict ones among loose ones.
    """
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, tuple[Raw, bool | tuple[int, ...]] | None] = {}


def _write_tools(tools: Tools) -> tuple[Raw, bool | tuple[int, ...]] | None:
    out: list[Any] = []
    strict: list[int] = []
    for k, (t, schema) in enumerate(zip(tools.specs, tools.schemas, strict=True)):
        f = t.function
        fn: dict[str, Any] = {"name": f.name}
        if type(f.description) is str and f.description:
            fn["description"] = f.description
        fn["parameters"] = schema.value  # a strict tool's is closed already (see _source)
        out.append({"type": "function", "function": fn})
        if f.strict is True:
            strict.append(tools.index(k))
    every = bool(strict) and len(strict) == len(out)
    return Raw(encode_body(out)), True if every else tuple(strict)
