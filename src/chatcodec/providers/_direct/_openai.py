"""A usual request written straight as an OpenAI Chat Completions request.

What :func:`chatcodec.providers.openai.encode_request` writes for the
canonical form of such a request, without building that form: each message
one message (an answer's text blocks joined into one text, its calls with
their arguments as the JSON they were read as, each result right after the
answer it answers, as the shape check ensures), images by URL or as their
data URL, function tools, the settings. It is written from what
:class:`~._source.Read` holds and not from one source's spellings, so any
source whose reader yields a ``Read`` can be served; what the encoder would
write back from an OpenAI Chat source's own extras (its dialect hints, the
keys it keeps, files, reasoning, list contents of an answer) is declined, as
is anything OpenAI's preflight would find.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import UNSET, Raw

from ..._loss import Loss
from ..._tools import ToolDefinition
from .._wire import Encoding, encode_body
from ..openai._check import MAX_STOP, MAX_TOOLS, _optional_properties
from ..openai._common import data_url
from ..openai._encode import reasoning_effort
from ._source import (
    NOT_JSON,
    Fallback,
    Message,
    Read,
    Tools,
    check_sampling,
    kept_losses,
    once,
    tool_choice,
    tool_losses,
)

__all__ = ["write"]

NAME = "openai"


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The OpenAI Chat body, and what it could not carry.

    Raises
    ------
    Fallback
        When the general path would write more than the ``Read`` says (an
        OpenAI Chat source's own keys and forms, reasoning, files), or
        OpenAI's preflight would find a problem the shape check does not
        rule out (no model, more stop sequences or tools than it takes, a
        tool choice without tools, a sampling value the model refuses, a
        strict schema that leaves a property out of ``required``, a schema
        keyword).
    """
    body = r.body
    if not r.model or (r.source == NAME and r.kept is not None):
        raise Fallback  # a source's own keys are written back by the general path
    fmt = body.response_format
    if body.n is not UNSET or (fmt is not UNSET and r.source == NAME):
        raise Fallback  # an OpenAI Chat source's own forms
    if r.stop is not None and len(r.stop) > MAX_STOP:
        raise Fallback
    if r.choice is not None and r.choice != "none" and r.tools is None:
        raise Fallback  # the preflight's rule: nothing to choose from
    check_sampling(r, NAME)  # the model's sampling rule: the preflight names it
    tools = None if r.tools is None or not r.tools.specs else _tools(r.tools)
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {"model": r.model, "messages": _messages(r)}
    tool_losses(r, NAME, losses)  # after the messages, as the general encoder
    if tools is not None:
        out["tools"] = tools
    choice = tool_choice(r, NAME, losses)
    if choice is not None:
        if r.forced is None:
            out["tool_choice"] = choice
        else:
            out["tool_choice"] = {"type": "function", "function": {"name": r.forced}}
    if r.max_tokens is not None:
        out["max_tokens"] = r.max_tokens
    if body.temperature is not UNSET:
        out["temperature"] = body.temperature
    if body.top_p is not UNSET:
        out["top_p"] = body.top_p
    if r.stop is not None:
        out["stop"] = r.stop
    if body.stream is not UNSET:
        out["stream"] = body.stream
    if fmt is not UNSET:
        out["response_format"] = {"type": fmt.type}
    if r.reasoning is not None:
        effort = reasoning_effort(r.reasoning, Encoding(NAME, losses))
        if effort is not None:
            out["reasoning_effort"] = effort
    return encode_body(out), losses


def _messages(r: Read) -> list[Any]:
    messages = r.body.messages
    arguments = r.arguments
    own = r.source == NAME
    images = iter(r.images)
    out: list[Any] = []
    append = out.append
    for m in messages:
        role = m.role
        content: Any = m.content
        if role == "user":
            if type(content) is not str:
                content = _parts(content, images)
            append({"role": "user", "content": content})
        elif role == "tool":
            if type(content) is not str:  # text parts (see _source._messages)
                content = [{"type": "text", "text": part.text} for part in content]
            append({"role": "tool", "content": content, "tool_call_id": m.tool_call_id})
        elif role == "assistant":
            append(_assistant(m, arguments, own))
        else:  # an instruction, in its own role
            append({"role": role, "content": content})
    return out


def _parts(content: Any, images: Iterator[tuple[str, Any]]) -> list[Any]:
    parts: list[Any] = []
    for part in content:
        if part.type == "text":
            parts.append({"type": "text", "text": part.text})
            continue
        if part.type != "image_url":
            raise Fallback  # a file: its forms are the OpenAI source's own
        media_type, data = next(images)
        # As read when read as the JSON string it was (see _source.image), else joined again.
        url = part.image_url.url if type(data) is Raw else data_url(media_type, data)
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _assistant(m: Message, arguments: dict[str, Raw], own: bool) -> Any:
    if m.reasoning_content is not UNSET or m.reasoning is not UNSET:
        raise Fallback  # where reasoning goes is the source's and the dialect's say
    content = m.content
    out: dict[str, Any] = {"role": "assistant"}
    if type(content) is str:
        out["content"] = content
    elif type(content) is list:
        if own:
            raise Fallback  # an OpenAI Chat source's list is written back as a list
        texts: list[Any] = [part.text for part in content]  # text parts (see _source): one text
        out["content"] = "".join(texts)
    calls = m.tool_calls
    if calls is UNSET:
        return out
    wire: list[Any] = []
    for c in calls:
        data = arguments[c.id]
        if data is NOT_JSON:
            raise Fallback  # a warning of the preflight
        function = {"name": c.function.name, "arguments": bytes(data).decode()}
        wire.append({"id": c.id, "type": "function", "function": function})
    out["tool_calls"] = wire
    return out


def _tools(tools: Tools) -> Raw:
    """The function tools as OpenAI Chat takes them, written once per array."""
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, Raw | None] = {}
_decode = msgspec.json.decode


def _write_tools(tools: Tools) -> Raw | None:
    if len(tools.specs) + len(tools.foreign) > MAX_TOOLS:
        return None  # a problem of the preflight
    out: list[Any] = []
    for k, t in enumerate(tools.specs):
        f = t.function
        strict = f.strict is True
        description = None if f.description is UNSET else f.description
        if description == "":
            return None  # a source's own way to say none
        try:
            definition = ToolDefinition(
                f.name, description, _decode(bytes(f.parameters)), strict=strict
            )
        except ValueError:
            return None
        if definition.problems(NAME):
            return None  # a warning of the preflight
        fn: dict[str, Any] = {"name": f.name}
        if description is not None:
            fn["description"] = description
        if strict:
            # The schema the strict rules emit, as the general encoder writes it.
            fn["parameters"] = definition.emitted_parameters()
            if next(_optional_properties(fn["parameters"], f"$.tools[{k}]"), None) is not None:
                return None  # a problem of the preflight
            fn["strict"] = True
        else:
            fn["parameters"] = tools.schemas[k].value
        out.append({"type": "function", "function": fn})
    return Raw(encode_body(out))
