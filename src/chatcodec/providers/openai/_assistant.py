"""Canonical assistant message -> OpenAI wire, for requests and responses alike.

Text, or the content list when the message holds parts; reasoning as the
dialect's key (``reasoning_content``, ``reasoning``, OpenRouter's
``reasoning_details``) that the decoder noted; refusal; tool calls, valid and
invalid in their original order, or the legacy ``function_call``.
"""

from __future__ import annotations

from typing import Any

from msgspec import Raw

from ..._content import (
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._loss import a
from ..._messages import AssistantMessage
from ..._tools import InvalidToolCall, ToolCall
from .._cite import lose_citations
from .._wire import Encoding, fill
from ._cite import write_annotation
from ._common import NAME

__all__ = ["assistant_wire"]


def assistant_wire(
    m: AssistantMessage, own: dict[str, Any], path: str, enc: Encoding, *, response: bool = False
) -> dict[str, Any]:
    """The wire object of ``m`` (``own``: its OpenAI extras), before ``fill``."""
    out: dict[str, Any] = {}
    if "~role" not in own and "role" not in own:
        out["role"] = "assistant"
    content = m.content
    if isinstance(content, str):
        out["content"] = content
    elif content is not None:
        _assistant_parts(content, own, out, path, enc, response)
    calls = _calls(m, own, path, enc)
    if calls:
        if own.get("~function_call") and len(calls) == 1:
            fc = calls[0]["function"]
            out["function_call"] = fc
        else:
            out["tool_calls"] = calls
    return out


def _assistant_parts(
    content: tuple[Any, ...],
    own: dict[str, Any],
    out: dict[str, Any],
    path: str,
    enc: Encoding,
    response: bool,
) -> None:
    mode = own.get("~content")
    listed = mode == "parts"
    texts: list[str] = []
    notes: list[Any] = []
    size = 0  # characters of text so far: where the next part's annotations count from
    items: list[Any] = []
    reasoning: list[tuple[str, ReasoningPart, dict[str, Any]]] = []
    refusals: list[str] = []
    for j, part in enumerate(content):
        at = f"{path}.content[{j}]"
        if isinstance(part, OpaquePart):
            if part.provider == NAME:
                items.append(part.data)
                listed = listed or not response
            else:
                enc.lose(at, f"{a(part.provider)} block openai cannot carry")
            continue
        part_own = enc.own(part.extras, at)
        if isinstance(part, TextPart):
            texts.append(part.text)
            items.append(fill({"type": "text", "text": part.text}, part_own))
            if part.citations:
                if listed:
                    lose_citations(enc, part, at, "openai has no annotations on content parts")
                else:
                    for k, citation in enumerate(part.citations):
                        where = f"{at}.citations[{k}]"
                        note = write_annotation(citation, size, len(part.text), enc, where)
                        if note is not None:
                            notes.append(note)
            size += len(part.text)
        elif isinstance(part, RefusalPart):
            if part_own.get("~in") == "content" and listed:
                items.append(fill({"type": "refusal", "refusal": part.text}, part_own))
            else:
                refusals.append(part.text)
        elif isinstance(part, ReasoningPart):
            if part_own.get("~in") == "content" and listed:
                chunks = _chunks(part.text, part_own.get("~chunks"))
                items.append(fill({"type": "thinking", "thinking": chunks}, part_own))
            else:
                reasoning.append((at, part, part_own))
        else:
            enc.lose(at, "openai cannot carry this part in an assistant message")
    if listed:
        out["content"] = items
    elif texts:
        out["content"] = "".join(texts)
    if notes and not listed:
        out["annotations"] = notes
    if refusals:
        out["refusal"] = "".join(refusals)
    if reasoning:
        _reasoning(reasoning, own, out, enc)


def _chunks(text: str, lengths: Any) -> list[dict[str, str]]:
    """Mistral's thinking chunks, split where they were when they add up."""
    if not lengths or sum(lengths) != len(text):
        return [{"type": "text", "text": text}]
    out = []
    at = 0
    for n in lengths:
        out.append({"type": "text", "text": text[at : at + n]})
        at += n
    return out


def _reasoning(
    parts: list[tuple[str, ReasoningPart, dict[str, Any]]],
    own: dict[str, Any],
    out: dict[str, Any],
    enc: Encoding,
) -> None:
    key = own.get("~reasoning")
    signed = any(
        p.provider == NAME and (p.signature is not None or p.redacted is not None)
        for _, p, _ in parts
    )
    if key == "reasoning_details" or signed:
        details = []
        for at, part, part_own in parts:
            details.append(_detail(at, part, part_own, enc))
        out["reasoning_details"] = details
        dup = own.get("~dup")
        if dup:
            out[dup] = "".join(p.text for _, p, _ in parts)
        return
    if key is None:
        for at, _, _ in parts:
            enc.lose(at, "openai has no field for reasoning")
        return
    for at, part, _ in parts:
        _foreign_signature(at, part, enc)
    out[key] = "".join(p.text for _, p, _ in parts)
    dup = own.get("~dup")
    if dup:
        out[dup] = out[key]


def _foreign_signature(at: str, part: ReasoningPart, enc: Encoding) -> None:
    if part.signature is not None and part.provider != NAME:
        enc.lose(f"{at}.signature", f"{a(part.provider)} reasoning signature")
    if part.redacted is not None and part.provider != NAME:
        enc.lose(f"{at}.redacted", f"{part.provider} redacted reasoning")


def _detail(at: str, part: ReasoningPart, part_own: dict[str, Any], enc: Encoding) -> Any:
    kind = part_own.get("type")
    if kind is None:
        kind = "reasoning.encrypted" if part.redacted is not None and not part.text else None
        kind = kind or "reasoning.text"
    item: dict[str, Any] = {"type": kind}
    if kind == "reasoning.encrypted":
        if part.redacted is not None and part.provider == NAME:
            item["data"] = part.redacted
        else:
            _foreign_signature(at, part, enc)
    elif kind == "reasoning.summary":
        item["summary"] = part.text
    else:
        item["text"] = part.text
    if part.signature is not None:
        if part.provider == NAME:
            item["signature"] = part.signature
        else:
            _foreign_signature(at, part, enc)
    return fill(item, part_own)


def _calls(m: AssistantMessage, own: dict[str, Any], path: str, enc: Encoding) -> list[Any]:
    valid = [_call(c, f"{path}.tool_calls[{j}]", enc) for j, c in enumerate(m.tool_calls)]
    invalid = [
        _call(c, f"{path}.invalid_tool_calls[{j}]", enc) for j, c in enumerate(m.invalid_tool_calls)
    ]
    if not invalid:
        return valid
    at = own.get("~invalid_at")
    total = len(valid) + len(invalid)
    if (
        not at
        or len(at) != len(invalid)
        or not all(type(i) is int and 0 <= i < total for i in at)
        or len(set(at)) != len(at)
    ):
        return valid + invalid
    merged: list[Any] = [None] * total
    for i, call in zip(at, invalid, strict=True):
        merged[i] = call
    rest = iter(valid)
    return [call if call is not None else next(rest) for call in merged]


def _call(call: ToolCall | InvalidToolCall, path: str, enc: Encoding) -> dict[str, Any]:
    own = enc.own(call.extras, path)
    out: dict[str, Any] = {}
    if own.get("~id") != "derived" and call.id is not None:
        out["id"] = call.id
    if "~type" not in own and "type" not in own:
        out["type"] = "function"
    fn: dict[str, Any] = {}
    if call.name is not None:
        fn["name"] = call.name
    how = own.get("~arguments")
    if isinstance(call, ToolCall):
        args = bytes(call.arguments)
        if how == "object":
            fn["arguments"] = Raw(args)
        elif how != "absent" or args.strip() != b"{}":
            fn["arguments"] = args.decode()
    else:
        fn["arguments"] = call.arguments
    inner = own.get("~function")
    out["function"] = fill(fn, inner) if inner else fn
    return fill(out, own)
