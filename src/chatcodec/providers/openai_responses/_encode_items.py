"""Canonical messages -> Responses items (``input`` of a request, ``output`` of a response).

The reverse of :mod:`._decode_items`: each message becomes its items, an assistant
message its content items and calls in the order of its ``"~layout"`` hint
(content first, then calls, when it has none). Parts and messages of other
providers are written in the shapes the Responses API takes; what it has no
place for is reported to the :class:`~chatcodec.providers._wire.Encoding`.
"""

from __future__ import annotations

import json
from typing import Any

from ..._content import (
    AssistantPart,
    ContentPart,
    FilePart,
    ImagePart,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._loss import part_lost
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import InvalidToolCall, ToolCall
from .._cite import lose_citations
from .._wire import Encoding, derive_id, fill, lose_if_read_valid
from ..openai._common import data_url
from ._cite import write_annotations
from ._common import NAME, SUMMARY_JOIN, split_lengths

__all__ = ["NO_ERROR_FLAG", "write_message", "write_user_parts"]


def write_message(
    message: Message, path: str, enc: Encoding, items: list[Any], *, output: bool = False
) -> None:
    """Append the items of one message to ``items``.

    ``output`` writes assistant content as the output items of a response
    (every message item with an id and a status), not as input items.
    """
    own = enc.own(message.extras, path)
    if isinstance(message, UserMessage):
        content = message.content
        body = content if isinstance(content, str) else write_user_parts(content, path, enc)
        items.append(fill({"role": "user", "content": body}, own))
    elif isinstance(message, SystemMessage | DeveloperMessage):
        role = "system" if isinstance(message, SystemMessage) else "developer"
        pieces = split_lengths(message.content, own.get("~parts"), "")
        if pieces is not None:
            parts: str | list[Any] = [{"type": "input_text", "text": p} for p in pieces]
        else:
            parts = message.content
        items.append(fill({"role": role, "content": parts}, own))
    elif isinstance(message, ToolMessage):
        items.append(_tool_output(message, own, path, enc))
    else:
        _assistant(message, own, path, enc, items, output)


def write_user_parts(parts: tuple[ContentPart, ...], path: str, enc: Encoding) -> list[Any]:
    """The ``input_*`` parts of a user message or a tool output."""
    out: list[Any] = []
    for j, part in enumerate(parts):
        at = f"{path}.content[{j}]"
        own = enc.own(part.extras, at)
        if isinstance(part, TextPart):
            if part.citations:
                lose_citations(enc, part, at, "openai-responses input text has no annotations")
            out.append(fill({"type": "input_text", "text": part.text}, own))
        elif isinstance(part, ImagePart):
            url = part.url
            if part.data is not None:
                url = data_url(part.media_type or "", part.data)
            image: dict[str, Any] = {"type": "input_image", "image_url": url}
            if part.detail is not None:
                image["detail"] = part.detail
            elif "~detail" not in own:
                image["detail"] = "auto"  # required by the API
            out.append(fill(image, own))
        elif isinstance(part, FilePart):
            out.append(_file(part, own))
            if part.data is None and part.media_type is not None:
                enc.lose(f"{at}.media_type", f"{NAME} takes no media type for a file by URL or id")
        elif isinstance(part, OpaquePart) and part.provider == NAME:
            out.append(part.data)
        else:
            enc.lose(at, part_lost(NAME, _kind(part)))
    return out


def _file(part: FilePart, own: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "input_file"}
    if part.file_id is not None:
        out["file_id"] = part.file_id
    elif part.url is not None:
        out["file_url"] = part.url
    elif part.data is not None:
        if part.media_type is not None:
            out["file_data"] = data_url(part.media_type, part.data)
        else:
            out["file_data"] = part.data
    if part.filename is not None:
        out["filename"] = part.filename
    return fill(out, own)


def _kind(part: object) -> str:
    tag = getattr(type(part), "__struct_config__", None)
    return str(tag.tag) if tag is not None and tag.tag is not None else type(part).__name__


def _tool_output(
    message: ToolMessage, own: dict[str, Any], path: str, enc: Encoding
) -> dict[str, Any]:
    custom = "~custom" in own
    kind = "custom_tool_call_output" if custom else "function_call_output"
    content = message.content
    output: Any = content
    if not isinstance(content, str):
        output = write_user_parts(content, path, enc)
        if not output and "~output" not in own:
            output = ""  # every part was left out: an empty result, not an empty list
    if message.is_error:
        enc.lose(f"{path}.is_error", NO_ERROR_FLAG)
    return fill({"type": kind, "call_id": message.tool_call_id, "output": output}, own)


def _assistant(
    message: AssistantMessage,
    own: dict[str, Any],
    path: str,
    enc: Encoding,
    items: list[Any],
    output: bool,
) -> None:
    content = message.content
    contents: list[Any]
    if isinstance(content, str):
        item = fill({"role": "assistant", "content": content}, own)
        if output:
            item["content"] = [{"type": "output_text", "text": content, "annotations": []}]
            _output_keys(item, path, 0)
        contents = [item]
    else:
        contents = _content_items(content or (), path, enc, output)
    calls = [
        _call(call, f"{path}.tool_calls[{j}]", enc) for j, call in enumerate(message.tool_calls)
    ]
    invalid = [
        _invalid(call, f"{path}.invalid_tool_calls[{j}]", enc)
        for j, call in enumerate(message.invalid_tool_calls)
    ]
    layout = own.get("~layout")
    queues = {"p": contents, "c": calls, "x": invalid}
    if (
        type(layout) is str
        and all(kind in queues for kind in layout)
        and all(layout.count(kind) == len(queue) for kind, queue in queues.items())
    ):
        at = dict.fromkeys(queues, 0)
        for kind in layout:
            items.append(queues[kind][at[kind]])
            at[kind] += 1
    else:
        items += contents + calls + invalid


def _content_items(
    parts: tuple[AssistantPart, ...], path: str, enc: Encoding, output: bool
) -> list[Any]:
    items: list[Any] = []
    message: list[Any] | None = None  # the content list of the message item being filled
    for j, part in enumerate(parts):
        at = f"{path}.content[{j}]"
        own = enc.own(part.extras, at)
        if isinstance(part, ReasoningPart):
            message = None
            reasoning = _reasoning(part, own, at, enc, output, len(items))
            if reasoning is not None:
                items.append(reasoning)
            continue
        if isinstance(part, OpaquePart):
            if part.provider != NAME:
                enc.lose(at, f"{NAME} cannot carry a block of {part.provider}")
                continue
            if "~in" not in own:
                message = None
                items.append(part.data)
                continue
            wire: Any = part.data
        elif isinstance(part, RefusalPart):
            wire = fill({"type": "refusal", "refusal": part.text}, _part_level(own))
        else:  # a text part: the kinds of an assistant part end here
            assert isinstance(part, TextPart)
            hint = own.get("~item")
            cited = part.citations
            if type(hint) is dict and "~str" in hint and not cited:
                message = None
                easy: dict[str, Any] = {"role": "assistant", "content": part.text}
                items.append(fill(_item_level(easy, own, hint), hint))
                continue
            if not output and not own and not cited:
                message = None
                items.append({"role": "assistant", "content": part.text})
                continue
            wire = {"type": "output_text", "text": part.text}
            if cited:
                wire["annotations"] = write_annotations(part, enc, at)
            elif "annotations" not in own and "~noann" not in own:
                wire["annotations"] = []  # required by the API
            fill(wire, _part_level(own))
        hint = own.get("~item")
        if message is None or type(hint) is dict:
            message = []
            item: dict[str, Any] = {"role": "assistant", "content": message}
            if type(hint) is dict:
                item = fill(_item_level(item, own, hint), hint)
            else:
                item = {"type": "message", "role": "assistant", "content": message}
                if output:
                    _output_keys(item, path, len(items))
            items.append(item)
        message.append(wire)
    return items


def _item_level(item: dict[str, Any], own: dict[str, Any], hint: Any) -> dict[str, Any]:
    """``item`` with the item-level keys its first part carries (named in ``"~keys"``)."""
    keys = hint.get("~keys") if type(hint) is dict else None
    if type(keys) is list:
        fill(item, {key: own[key] for key in keys if key in own})
    return item


def _part_level(own: dict[str, Any]) -> dict[str, Any]:
    """``own`` without the keys of its item."""
    hint = own.get("~item")
    keys = hint.get("~keys") if type(hint) is dict else None
    if type(keys) is not list or not keys:
        return own
    return {key: value for key, value in own.items() if key not in keys}


def _output_keys(item: dict[str, Any], path: str, n: int) -> None:
    """Give an output message item the keys a response's items have."""
    item.setdefault("type", "message")
    item.setdefault("id", derive_id("msg_", path, n))
    item.setdefault("status", "completed")


def _reasoning(
    part: ReasoningPart, own: dict[str, Any], path: str, enc: Encoding, output: bool, n: int
) -> dict[str, Any] | None:
    ours = part.provider == NAME
    if not ours and not output:
        # Input reasoning items name the item the server made: another
        # provider's reasoning has none to name.
        enc.lose(path, f"{NAME} takes back only its own reasoning items")
        return None
    item: dict[str, Any] = {"type": "reasoning"}
    if output and "id" not in own:
        item["id"] = derive_id("rs_", path, n)
    summary = part.text
    lengths = own.get("~content")
    if lengths is not None and "content" not in own:
        # The model's own reasoning, read from the item's content (see reasoning_text).
        texts = split_lengths(part.text, lengths, SUMMARY_JOIN) or [part.text]
        item["content"] = [{"type": "reasoning_text", "text": t} for t in texts]
        summary = ""
    if "summary" not in own and own.get("~summary", 0) is not None:
        pieces = split_lengths(summary, own.get("~summary"), SUMMARY_JOIN)
        if pieces is None:
            pieces = [summary] if summary else []
        item["summary"] = [{"type": "summary_text", "text": p} for p in pieces]
    if part.signature is not None:
        if ours:
            item["encrypted_content"] = part.signature
        else:
            enc.lose(
                f"{path}.signature",
                f"{NAME} cannot check a reasoning signature of another provider",
            )
    if part.redacted is not None:
        enc.lose(f"{path}.redacted", f"{NAME} cannot carry redacted reasoning of another provider")
    return fill(item, own)


def _call(call: ToolCall, path: str, enc: Encoding) -> dict[str, Any]:
    own = enc.own(call.extras, path)
    if call.approval is not None:
        enc.lose(f"{path}.approval", f"{NAME} has no approval status for a tool call")
    if "~custom" in own:
        value = json.loads(bytes(call.arguments))
        if type(value) is dict and type(value.get("input")) is str and len(value) == 1:
            item = {"type": "custom_tool_call", "call_id": call.id, "name": call.name}
            item["input"] = value["input"]
            return fill(item, own)
    arguments = bytes(call.arguments).decode()
    return fill(
        {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": arguments},
        own,
    )


def _invalid(call: InvalidToolCall, path: str, enc: Encoding) -> dict[str, Any]:
    lose_if_read_valid(call, path, enc)
    own = enc.own(call.extras, path)
    call_id = call.id or derive_id("call_", path, call.arguments)
    if call.id is None:
        enc.lose(f"{path}.id", f"{NAME} needs an id for every tool call")
    return fill(
        {
            "type": "function_call",
            "call_id": call_id,
            "name": call.name or "",
            "arguments": call.arguments,
        },
        own,
    )


NO_ERROR_FLAG = f"{NAME} has no error flag for a tool result"
