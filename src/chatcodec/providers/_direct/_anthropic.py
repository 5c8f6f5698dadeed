"""A usual OpenAI Chat request written straight as an Anthropic Messages request.

What :func:`chatcodec.providers.anthropic.encode_request` writes for the
canonical form of such a request, without building that form: leading
instructions become ``system`` (a string when there is one), runs of user and
tool messages one user turn (results first), an answer with calls or
reasoning its blocks; reasoning that Anthropic did not sign is left out and
reported, as the general path reports it. Tool-call arguments go through as
the bytes they were sent as.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import UNSET, Raw

from ..._loss import Loss
from .._models import foreign_model
from .._wire import encode_body
from ..anthropic._encode import _MODES, NO_SCHEMA
from ..anthropic._encode_parts import EMPTY_TEXT, NO_FILE_NAME, NO_JSON_INPUT, UNSIGNED
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

NAME = "anthropic"


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The Anthropic body, and what it could not carry.

    Raises
    ------
    Fallback
        When Anthropic's preflight would find a problem the shape check
        does not rule out (no ``max_tokens`` or model, another family's
        model, a schema keyword, a sampling value the model's profile refuses),
        or the request has a reasoning setting (thinking has rules of its own
        there: a budget under ``max_tokens``, no forced tool, sampling held).
    """
    body = r.body
    if r.max_tokens is None or r.model is None or foreign_model(r.model, NAME) is not None:
        raise Fallback
    if r.reasoning is not None:
        raise Fallback
    check_sampling(r, NAME)  # the model's sampling rule: the preflight names it
    tools = None if r.tools is None or not r.tools.specs else _tools(r)
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {}
    if r.model is not None:
        out["model"] = r.model
    out["max_tokens"] = r.max_tokens
    messages = body.messages
    start = r.start
    if start == 1:
        out["system"] = messages[0].content
    elif start:
        out["system"] = [{"type": "text", "text": m.content} for m in messages[:start]]
    out["messages"] = _turns(r, losses)
    tool_losses(r, NAME, losses)  # after the messages, as the general encoder
    if tools is not None:
        out["tools"] = tools
    choice = tool_choice(r, NAME, losses)
    if choice is not None:
        out["tool_choice"] = {"type": _MODES[choice]}
        if r.forced is not None:
            out["tool_choice"]["name"] = r.forced
    if body.temperature is not UNSET:
        out["temperature"] = body.temperature
    if body.top_p is not UNSET:
        out["top_p"] = body.top_p
    if r.stop is not None:
        out["stop_sequences"] = r.stop
    if body.stream is not UNSET:
        out["stream"] = body.stream
    fmt = body.response_format
    if fmt is not UNSET and fmt.type != "text":
        losses.append(Loss("$.response_format", NO_SCHEMA))
    return encode_body(out), losses


def _turns(r: Read, losses: list[Loss]) -> list[Any]:
    messages = r.body.messages
    arguments = r.arguments
    images = iter(r.images)
    turns: list[Any] = []
    k = r.start
    n = len(messages)
    while k < n:
        m = messages[k]
        if m.role == "assistant":
            turns.append(_assistant(m, k, arguments, losses))
            k += 1
            continue
        end = k + 1
        while end < n and messages[end].role != "assistant":
            end += 1
        if end == k + 1 and m.role == "user" and type(m.content) is str:
            turns.append({"role": "user", "content": m.content})
        else:
            results: list[Any] = []
            blocks: list[Any] = []
            for j in range(k, end):
                item = messages[j]
                if item.role == "tool":
                    if type(item.content) is not str:
                        raise Fallback  # text parts: no source of this writer's has them
                    result: dict[str, Any] = {
                        "type": "tool_result",
                        "tool_use_id": item.tool_call_id,
                        "content": item.content,
                    }
                    if item.tool_call_id in r.failed:
                        result["is_error"] = True
                    results.append(result)
                else:
                    _user(item.content, blocks, images, j, losses)
            turns.append({"role": "user", "content": results + blocks})
        k = end
    return turns


def _user(
    content: Any,
    blocks: list[Any],
    images: Iterator[tuple[str, Any]],
    k: int,
    losses: list[Loss],
) -> None:
    if type(content) is str:
        blocks.append({"type": "text", "text": content})
        return
    for n, part in enumerate(content):
        if part.type == "text":
            blocks.append({"type": "text", "text": part.text})
        elif part.type != "image_url":  # a file, or Mistral's document by URL
            by_url = part.type == "document_url"
            if not by_url and part.file.filename is not UNSET:
                losses.append(Loss(f"$.messages[{k}].content[{n}].filename", NO_FILE_NAME))
            media_type, data = next(images)
            if media_type:
                source = {"type": "base64", "media_type": media_type, "data": data}
            elif by_url:
                source = {"type": "url", "url": data}
            else:
                source = {"type": "file", "file_id": data}
            blocks.append({"type": "document", "source": source})
        else:
            media_type, data = next(images)
            if media_type:
                source = {"type": "base64", "media_type": media_type, "data": data}
            else:
                source = {"type": "url", "url": data}
            blocks.append({"type": "image", "source": source})


def _assistant(m: Message, k: int, arguments: dict[str, Any], losses: list[Loss]) -> Any:
    content = m.content
    calls = m.tool_calls
    reasoning = m.reasoning_content is not UNSET or m.reasoning is not UNSET
    if not reasoning and calls is UNSET and type(content) is str:
        return {"role": "assistant", "content": content}
    if reasoning:
        losses.append(Loss(f"$.messages[{k}].content[0]", UNSIGNED))
    blocks: list[Any] = []
    if content == "":  # beside calls (see _source): dropped and reported, as the general path
        losses.append(Loss(f"$.messages[{k}].content", EMPTY_TEXT))
    elif type(content) is str:
        blocks.append({"type": "text", "text": content})
    elif type(content) is list:
        blocks.extend({"type": "text", "text": part.text} for part in content)
    if calls is not UNSET:
        late: list[Any] = []  # invalid calls: after the others, as the general path orders them
        for c in calls:
            data = arguments[c.id]
            block = {"type": "tool_use", "id": c.id, "name": c.function.name, "input": data}
            (late if data is NOT_JSON else blocks).append(block)
        for n, block in enumerate(late):
            losses.append(Loss(f"$.messages[{k}].invalid_tool_calls[{n}].arguments", NO_JSON_INPUT))
            blocks.append(block)
    return {"role": "assistant", "content": blocks}


def _tools(r: Read) -> Raw:
    """The tools as Anthropic takes them, written once per array."""
    tools = r.tools
    assert tools is not None
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, Raw | None] = {}


def _write_tools(tools: Tools) -> Raw | None:
    out: list[Any] = []
    for t, schema in zip(tools.specs, tools.schemas, strict=True):
        f = t.function
        strict = f.strict is True
        if strict and not schema.anthropic_strict:
            return None  # a warning of the preflight
        tool: dict[str, Any] = {"name": f.name}
        if type(f.description) is str and f.description:
            tool["description"] = f.description
        tool["input_schema"] = schema.value
        if strict:
            tool["strict"] = True
        out.append(tool)
    return Raw(encode_body(out))
