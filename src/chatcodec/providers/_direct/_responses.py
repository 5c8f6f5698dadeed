"""A usual OpenAI Chat request written straight as a Responses API request.

What :func:`chatcodec.providers.openai_responses.encode_request` writes for
the canonical form of such a request, without building that form: the first
instruction becomes ``instructions``, every other message its ``input``
items (an answer its text, then its calls, the invalid ones last, with their
arguments as sent), parts their ``input_*`` parts; reasoning that the
Responses API did not make and stop sequences are left out and reported, as
the general path reports them. Image and file URLs go through as the bytes
they were sent as.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import UNSET, Raw

from ..._loss import Loss
from .._wire import Encoding, encode_body
from ..openai._common import data_url
from ..openai_responses._check import MAX_TOOLS, MIN_OUTPUT_TOKENS
from ..openai_responses._request import reasoning_field
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

NAME = "openai-responses"
# The general encoder's words (openai_responses/_request.py, _encode_items.py).
NO_STOP = f"{NAME} has no stop sequences"
NOT_OURS = f"{NAME} takes back only its own reasoning items"


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The Responses body, and what it could not carry.

    Raises
    ------
    Fallback
        When the Responses API's preflight would find a problem the shape
        check does not rule out (no model, a token limit under its least,
        too many tools).
    """
    body = r.body
    if not r.model or (r.max_tokens is not None and r.max_tokens < MIN_OUTPUT_TOKENS):
        raise Fallback
    check_sampling(r, NAME)  # the model's sampling rule: the preflight names it
    tools = None if r.tools is None or not r.tools.specs else _tools(r)
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {"model": r.model}
    messages = body.messages
    if r.start:
        out["instructions"] = messages[0].content
    out["input"] = _items(r, losses)
    tool_losses(r, NAME, losses)  # after the messages, as the general encoder
    if tools is not None:
        out["tools"] = tools
    choice = tool_choice(r, NAME, losses)
    if choice is not None:
        forced = r.forced
        out["tool_choice"] = choice if forced is None else {"type": "function", "name": forced}
    if r.max_tokens is not None:
        out["max_output_tokens"] = r.max_tokens
    if body.temperature is not UNSET:
        out["temperature"] = body.temperature
    if body.top_p is not UNSET:
        out["top_p"] = body.top_p
    if r.stop is not None:
        losses.append(Loss("$.stop", NO_STOP))
    if r.reasoning is not None:
        out["reasoning"] = reasoning_field(r.reasoning, Encoding(NAME, losses))
    if body.stream is not UNSET:
        out["stream"] = body.stream
    fmt = body.response_format
    if fmt is not UNSET:
        out["text"] = {"format": {"type": fmt.type}}
    return encode_body(out), losses


def _items(r: Read, losses: list[Loss]) -> list[Any]:
    messages = r.body.messages
    arguments = r.arguments
    images = iter(r.images)
    items: list[Any] = []
    append = items.append
    for k in range(1 if r.start else 0, len(messages)):
        m = messages[k]
        role = m.role
        if role == "user":
            content = m.content
            if type(content) is not str:
                content = _user(content, images)
            append({"role": "user", "content": content})
        elif role == "tool":
            output: Any = m.content
            if type(output) is not str:  # text parts (see _source._messages), or none
                output = [{"type": "input_text", "text": part.text} for part in output] or ""
            append({"type": "function_call_output", "call_id": m.tool_call_id, "output": output})
        elif role == "assistant":
            _assistant(m, k, arguments, items, losses)
        else:  # a leading instruction after the first
            append({"role": role, "content": m.content})
    return items


def _user(content: Any, images: Iterator[tuple[str, Any]]) -> list[Any]:
    parts: list[Any] = []
    for part in content:
        kind = part.type
        if kind == "text":
            parts.append({"type": "input_text", "text": part.text})
            continue
        media_type, data = next(images)
        if kind == "image_url":
            # As sent when read as sent (see _source.image), else as the general path joins it.
            url = part.image_url.url if type(data) is Raw else data_url(media_type, data)
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
        elif kind == "document_url":
            # A PDF's data URL or an https URL, each read as sent (see _source.document_url).
            key = "file_data" if media_type else "file_url"
            parts.append({"type": "input_file", key: part.document_url})
        else:
            f = part.file
            if media_type:
                file = {"type": "input_file", "file_data": f.file_data}  # a PDF, as sent
            else:
                file = {"type": "input_file", "file_id": data}
            if f.filename is not UNSET:
                file["filename"] = f.filename
            parts.append(file)
    return parts


def _assistant(
    m: Message, k: int, arguments: dict[str, Raw], items: list[Any], losses: list[Loss]
) -> None:
    content = m.content
    if m.reasoning_content is not UNSET or m.reasoning is not UNSET:
        losses.append(Loss(f"$.messages[{k}].content[0]", NOT_OURS))
    if type(content) is str:
        items.append({"role": "assistant", "content": content})
    elif type(content) is list:
        items.extend({"role": "assistant", "content": part.text} for part in content)
    calls = m.tool_calls
    if calls is UNSET:
        return
    late: list[Any] = []  # invalid calls: after the others, as the general path orders them
    for c in calls:
        data = arguments[c.id]
        f = c.function
        if data is NOT_JSON:
            late.append(
                {"type": "function_call", "call_id": c.id, "name": f.name, "arguments": f.arguments}
            )
        else:
            text = bytes(data).decode()  # the JSON as read, without the spaces around it
            items.append(
                {"type": "function_call", "call_id": c.id, "name": f.name, "arguments": text}
            )
    items += late


def _tools(r: Read) -> Raw:
    """The function tools as the Responses API takes them, written once per array."""
    tools = r.tools
    assert tools is not None
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, Raw | None] = {}


def _write_tools(tools: Tools) -> Raw | None:
    if len(tools.specs) + len(tools.foreign) > MAX_TOOLS:
        return None  # a problem of the preflight
    out: list[Any] = []
    for t, schema in zip(tools.specs, tools.schemas, strict=True):
        f = t.function
        tool: dict[str, Any] = {"type": "function", "name": f.name}
        if type(f.description) is str and f.description:
            tool["description"] = f.description
        tool["parameters"] = schema.value  # a strict tool's is closed already (see _source)
        tool["strict"] = f.strict is True
        out.append(tool)
    return Raw(encode_body(out))
