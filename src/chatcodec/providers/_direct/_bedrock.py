"""A usual OpenAI Chat request written straight as a Bedrock ``Converse`` request.

What :func:`chatcodec.providers.bedrock.encode_request` writes for the
canonical form of such a request, without building that form: leading
instructions become ``system``, runs of user and tool messages one user turn
(results first, in order), an answer its reasoning, text and ``toolUse``
blocks, the settings ``inferenceConfig``. Images and PDFs by data go as
bytes; what Converse does not take (an image or a file by URL or id, a
tool choice ``"none"``, a JSON format, streaming by a field) is left out and
reported, and a history of calls without tools declares the tools it calls,
as the general path does. Tool-call arguments go through as the bytes they
were sent as.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec import UNSET, Raw

from ..._errors import ValidationError
from ..._loss import Loss
from ..._tools import check_name
from .._wire import encode_body
from ..bedrock._blocks import _NAME_RULE, NAME_CHANGED
from ..bedrock._encode import NO_REASONING
from ._source import (
    NOT_JSON,
    Fallback,
    Message,
    Read,
    Tools,
    check_sampling,
    kept_losses,
    once,
    tool_losses,
)

__all__ = ["write"]

NAME = "bedrock"
# The general encoder's words (bedrock/_encode.py, _blocks.py).
NO_URL_IMAGE = "an image by URL bedrock does not take"
NO_URL_FILE = "a file by URL or id bedrock does not take"
NO_JSON_INPUT = "bedrock needs a JSON object as tool input: sent {}"
NO_NONE = 'bedrock has no tool choice "none"'
NO_TOOLS = "bedrock takes a tool choice only with tools"
DECLARED = "bedrock needs the tools a history calls: declared with open schemas"
STREAM = "bedrock streams by operation (ConverseStream), not by a field"
NO_JSON_FORMAT = "bedrock takes an answer's shape as a JSON schema only"


def write(r: Read) -> tuple[bytes, list[Loss]]:
    """The Converse body, and what it could not carry.

    Raises
    ------
    Fallback
        When Bedrock's preflight would find a problem the shape check does
        not rule out (a blank text), or a user message would be left with
        nothing to send.
    """
    check_sampling(r, NAME)  # the model's sampling rule: the preflight names it
    body = r.body
    losses: list[Loss] = []
    if r.kept is not None:
        losses += kept_losses(NAME, r)
    out: dict[str, Any] = {}
    messages = body.messages
    start = r.start
    if start:
        out["system"] = [{"text": m.content} for m in messages[:start]]
    called: list[str] = []  # the tools the history calls, in order
    out["messages"] = _turns(r, losses, called)
    tool_losses(r, NAME, losses)  # after the messages, as the general encoder
    tools = None if r.tools is None or not r.tools.specs else _tools(r.tools)
    config: dict[str, Any] | None = None
    if tools is not None:
        config = {"tools": tools}
        choice = r.choice
        if choice == "tool":
            config["toolChoice"] = {"tool": {"name": r.forced}}
        elif choice == "none":
            losses.append(Loss("$.tool_choice", NO_NONE))
        elif choice is not None:
            config["toolChoice"] = {"any": {}} if choice == "required" else {"auto": {}}
    else:
        if r.choice is not None:
            losses.append(Loss("$.tool_choice", NO_TOOLS))
        if called:
            if not all(map(_nameable, called)):
                raise Fallback  # declared, then read back as no tool: the preflight's error
            losses.append(Loss("$.tools", DECLARED))
            declared = [
                {"name": name, "inputSchema": {"json": {"type": "object"}}} for name in called
            ]
            config = {"tools": [{"toolSpec": spec} for spec in declared]}
    if config is not None:
        out["toolConfig"] = config
    inference: dict[str, Any] = {}
    if r.max_tokens is not None:
        inference["maxTokens"] = r.max_tokens
    if body.temperature is not UNSET:
        inference["temperature"] = body.temperature
    if body.top_p is not UNSET:
        inference["topP"] = body.top_p
    if r.stop is not None:
        inference["stopSequences"] = r.stop
    if inference:
        out["inferenceConfig"] = inference
    if body.stream is True:
        losses.append(Loss("$.stream", STREAM))
    fmt = body.response_format
    if fmt is not UNSET and fmt.type != "text":
        losses.append(Loss("$.response_format", NO_JSON_FORMAT))
    if r.reasoning is not None:
        losses.append(Loss("$.reasoning", NO_REASONING))
    return encode_body(out), losses


def _turns(r: Read, losses: list[Loss], called: list[str]) -> list[Any]:
    messages = r.body.messages
    images = iter(r.images)
    turns: list[Any] = []
    blocks: list[Any] | None = None  # the blocks of the open user turn
    for k in range(r.start, len(messages)):
        m = messages[k]
        role = m.role
        if role == "assistant":
            blocks = None
            turns.append({"role": "assistant", "content": _assistant(m, k, r, losses, called)})
            continue
        if role == "tool":
            content: Any = m.content
            if type(content) is str:
                texts = [{"text": content}]
            else:  # text parts (see _source._messages)
                texts = [{"text": part.text} for part in content]
            result = {"toolUseId": m.tool_call_id, "content": texts}
            if m.tool_call_id in r.failed:
                result["status"] = "error"
            new: list[Any] = [{"toolResult": result}]
        else:
            new = _user(m.content, images, k, losses)
        if blocks is None:
            blocks = new
            turns.append({"role": "user", "content": blocks})
        else:
            blocks += new
    return turns


def _user(content: Any, images: Iterator[tuple[str, Any]], k: int, losses: list[Loss]) -> list[Any]:
    if type(content) is str:
        if not content.strip():
            raise Fallback  # a blank text: a warning of the preflight
        return [{"text": content}]
    blocks: list[Any] = []
    for j, part in enumerate(content):
        kind = part.type
        if kind == "text":
            if not part.text.strip():
                raise Fallback
            blocks.append({"text": part.text})
            continue
        media_type, data = next(images)
        path = f"$.messages[{k}].content[{j}]"
        if kind == "image_url":
            if not media_type:
                losses.append(Loss(path, NO_URL_IMAGE))
                continue
            image = {"format": media_type[6:], "source": {"bytes": data}}  # after "image/"
            blocks.append({"image": image})
        elif not media_type:  # a file by id, or a document by URL
            losses.append(Loss(path, NO_URL_FILE))
        else:  # a PDF
            filename = part.file.filename if kind == "file" else UNSET
            name = "document"
            if filename is not UNSET and filename:
                name = _NAME_RULE.sub("-", filename) or name
                if name != filename:
                    losses.append(Loss(f"{path}.filename", NAME_CHANGED))
            document = {"format": "pdf", "name": name, "source": {"bytes": data}}
            blocks.append({"document": document})
    if not blocks:
        raise Fallback  # a turn with nothing left: the general path knows its rule
    return blocks


def _assistant(m: Message, k: int, r: Read, losses: list[Loss], called: list[str]) -> list[Any]:
    blocks: list[Any] = []
    if m.reasoning_content is not UNSET:
        blocks.append({"reasoningContent": {"reasoningText": {"text": m.reasoning_content}}})
    elif m.reasoning is not UNSET:
        blocks.append({"reasoningContent": {"reasoningText": {"text": m.reasoning}}})
    content = m.content
    if type(content) is str:
        if content:  # "" beside calls (see _source): no block, as Converse refuses one
            if not content.strip():
                raise Fallback  # a blank text: a warning of the preflight
            blocks.append({"text": content})
    elif type(content) is list:
        for part in content:
            assert type(part.text) is str  # checked by read
            if not part.text.strip():
                raise Fallback
            blocks.append({"text": part.text})
    calls = m.tool_calls
    if calls is UNSET:
        return blocks
    arguments = r.arguments
    late: list[Any] = []  # invalid calls: after the others, as the general path orders them
    for c in calls:
        data = arguments[c.id]
        use: dict[str, Any] = {"toolUseId": c.id, "name": c.function.name, "input": data}
        if data is NOT_JSON:
            use["input"] = {}
            late.append({"toolUse": use})
        else:
            blocks.append({"toolUse": use})
    for n in range(len(late)):
        losses.append(Loss(f"$.messages[{k}].invalid_tool_calls[{n}].arguments", NO_JSON_INPUT))
    blocks += late
    if r.tools is None:  # the tools to declare, in the order of the blocks (see write)
        for block in blocks:
            use = block.get("toolUse")
            if use is not None and use["name"] not in called:
                called.append(use["name"])
    return blocks


def _nameable(name: str) -> bool:
    """Whether ``name`` is one a tool may have (a declared tool is read back by it)."""
    try:
        check_name(name)
    except ValidationError:
        return False
    return True


def _tools(tools: Tools) -> Raw:
    """The ``toolConfig.tools``, written once per array of tools."""
    return once(_WRITTEN, tools.key, _write_tools, tools)


_WRITTEN: dict[bytes, Raw | None] = {}


def _write_tools(tools: Tools) -> Raw | None:
    out: list[Any] = []
    for t, schema in zip(tools.specs, tools.schemas, strict=True):
        f = t.function
        spec: dict[str, Any] = {"name": f.name}
        if type(f.description) is str and f.description:
            spec["description"] = f.description
        spec["inputSchema"] = {"json": schema.value}  # a strict tool's is closed (see _source)
        out.append({"toolSpec": spec})
    return Raw(encode_body(out))
