"""A usual OpenAI Chat request written straight as an Ollama ``/api/chat`` request.

What :func:`chatcodec.providers.ollama.encode_request` writes for the
canonical form of such a request, without building that form: each message
one message, its text parts joined into one ``content`` and its images by
data in ``images`` (a file, an image by URL and text after an image
reported), reasoning as ``thinking``, a result with the name of the call it
answers, the settings in ``options``, ``"stream": false`` unless the request
says; a call whose arguments are not JSON goes with ``{}`` and a tool choice
other than ``"auto"`` is left out, each reported, as the general path
reports them. Tool-call arguments and image data go through as the bytes
they were sent as.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import UNSET, Raw

from ..._frozen import FrozenMap
from ..._loss import Loss
from ..._problems import Problem
from .._wire import Encoding, encode_body
from ..ollama._check import _check_schema
from ..ollama._common import standard_base64
from ..ollama._encode import think
from ._source import NOT_JSON, Fallback, Read, Tools, kept_losses, once, tool_losses

__all__ = ["write"]

NAME = "ollama"
# The general encoder's words (ollama/_encode.py).
JOINED = "ollama takes one text per message: joined to the text before"
TEXT_AFTER = "ollama sends the images of a message after its text"
NO_URL_IMAGE = "ollama cannot carry an image by URL"
NO_FILE = "ollama cannot carry a file part"
NO_OBJECT = "arguments that are not a JSON object are sent as {}"
NO_CHOICE = "ollama cannot require or forbid tool calls"
_FORMATS = FrozenMap({"text": "", "json_object": "json"})
_SEPARATOR = "\n"


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The Ollama body, and what it could not carry.

    Raises
    ------
    Fallback
        When Ollama's preflight would find a problem the shape check does
        not rule out (no model, image data that is not base64, a schema
        Ollama cannot read).
    """
    if not r.model:  # none, or an empty name
        raise Fallback
    body = r.body
    tools = None if r.tools is None or not r.tools.specs else _tools(r.tools)
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {"model": r.model, "messages": _messages(r, losses)}
    tool_losses(r, NAME, losses)  # after the messages, as the general encoder
    if tools is not None:
        out["tools"] = tools
    fmt = body.response_format
    if fmt is not UNSET:
        out["format"] = _FORMATS[fmt.type]
    options: dict[str, Any] = {}
    if body.temperature is not UNSET:
        options["temperature"] = body.temperature
    if body.top_p is not UNSET:
        options["top_p"] = body.top_p
    if r.max_tokens is not None:
        options["num_predict"] = r.max_tokens
    if r.stop is not None:
        options["stop"] = r.stop
    if options:
        out["options"] = options
    out["stream"] = body.stream if body.stream is not UNSET else False  # Ollama's default: true
    if r.choice is not None and r.choice != "auto":
        losses.append(Loss("$.tool_choice", NO_CHOICE))
    if r.reasoning is not None:
        out["think"] = think(r.reasoning, Encoding(NAME, losses))
    return encode_body(out), losses


def _messages(r: Read, losses: list[Loss]) -> list[Any]:
    messages = r.body.messages
    arguments, names = r.arguments, r.names
    images = iter(r.images)
    out: list[Any] = []
    append = out.append
    for k in range(len(messages)):
        m: Any = messages[k]  # its keys were checked for its role by read
        role = m.role
        if role == "user":
            item: dict[str, Any] = {"role": "user"}
            if type(m.content) is str:
                item["content"] = m.content
            else:
                _parts(m.content, images, item, k, losses)
            append(item)
        elif role == "tool":
            call_id = m.tool_call_id
            content = m.content
            result: dict[str, Any] = {"role": "tool"}
            if type(content) is str:
                result["content"] = content
            else:  # text parts (see _source._messages): joined; none (see Read.blocks): no text
                _parts(content, images, result, k, losses)
            result["tool_name"] = names[call_id]
            result["tool_call_id"] = call_id
            append(result)
        elif role == "assistant":
            append(_assistant(m, k, arguments, losses))
        else:  # an instruction: a developer's too, as Ollama has no such role
            append({"role": "system", "content": m.content})
    return out


def _parts(
    content: Any,
    images: Iterator[tuple[str, Any]],
    item: dict[str, Any],
    k: int,
    losses: list[Loss],
) -> None:
    """A user's parts as ``content`` (the texts joined) and ``images``."""
    texts: list[str] = []
    data_list: list[Any] = []
    for j, part in enumerate(content):
        kind = part.type
        if kind == "text":
            if texts:
                losses.append(Loss(f"$.messages[{k}].content[{j}]", JOINED))
            elif data_list:
                losses.append(Loss(f"$.messages[{k}].content[{j}]", TEXT_AFTER))
            texts.append(part.text)
            continue
        media_type, data = next(images)
        if kind != "image_url":  # a file, or a document by URL
            losses.append(Loss(f"$.messages[{k}].content[{j}]", NO_FILE))
        elif not media_type:
            losses.append(Loss(f"$.messages[{k}].content[{j}]", NO_URL_IMAGE))
        else:
            data_list.append(_image(data))
    if texts:
        item["content"] = _SEPARATOR.join(texts)
    if data_list:
        item["images"] = data_list


def _image(data: Any) -> Any:
    """An image's base64 data as Ollama takes it: standard and padded (see standard_base64).

    Raises
    ------
    Fallback
        When it is not base64 even so: an error of Ollama's preflight.
    """
    if type(data) is Raw:
        sent = bytes(data)  # the JSON string as sent: ASCII without escapes
        if b"-" not in sent and b"_" not in sent and len(sent) % 4 == 2:
            _check_base64(memoryview(sent)[1:-1])
            return data
        data = sent[1:-1].decode()
    data = standard_base64(data)
    _check_base64(data.replace("\n", "").replace("\r", "").encode())
    return data


def _check_base64(data: Any) -> None:
    # Ollama's preflight rule (ollama/_check.py, which Go's decoder follows), on bytes.
    try:
        b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Fallback from None


def _assistant(m: Any, k: int, arguments: dict[str, Raw], losses: list[Loss]) -> Any:
    out: dict[str, Any] = {"role": "assistant"}
    content = m.content
    thinking = m.reasoning_content if m.reasoning_content is not UNSET else m.reasoning
    if type(content) is str:
        out["content"] = content
    elif type(content) is list and content:  # [] beside calls: no content
        # Each text after the first is reported at its place among the parts, after any reasoning.
        first = 0 if thinking is UNSET else 1
        for j in range(1, len(content)):
            losses.append(Loss(f"$.messages[{k}].content[{first + j}]", JOINED))
        out["content"] = _SEPARATOR.join(part.text for part in content)
    if thinking is not UNSET:
        out["thinking"] = thinking
    calls = m.tool_calls
    if calls is UNSET:
        return out
    wire: list[Any] = []
    late: list[Any] = []  # invalid calls: after the others, as the general path orders them
    for c in calls:
        data = arguments[c.id]
        if data is NOT_JSON:
            late.append({"function": {"name": c.function.name, "arguments": {}}, "id": c.id})
        else:
            wire.append({"function": {"name": c.function.name, "arguments": data}, "id": c.id})
    for n in range(len(late)):
        losses.append(Loss(f"$.messages[{k}].invalid_tool_calls[{n}].arguments", NO_OBJECT))
    out["tool_calls"] = wire + late
    return out


def _tools(tools: Tools) -> Raw:
    """The tools as Ollama takes them, written once per array."""
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, Raw | None] = {}
_decode = msgspec.json.decode


def _write_tools(tools: Tools) -> Raw | None:
    out: list[Any] = []
    for k, (t, schema) in enumerate(zip(tools.specs, tools.schemas, strict=True)):
        f = t.function
        found: list[Problem] = []
        _check_schema(_decode(bytes(f.parameters)), f"$.tools[{k}].parameters", found)
        if found:
            return None  # a problem of Ollama's preflight
        fn: dict[str, Any] = {"name": f.name}
        if type(f.description) is str and f.description:
            fn["description"] = f.description
        fn["parameters"] = schema.value  # a strict tool's is closed already (see _source)
        out.append({"type": "function", "function": fn})
    return Raw(encode_body(out))
