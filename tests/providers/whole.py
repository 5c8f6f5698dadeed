"""Streams rewritten into their family's "whole arguments at once" form.

Some servers send a tool call's arguments in one piece rather than in
fragments: OpenAI-compatible ones in the call's first delta, the Responses
API only in ``function_call_arguments.done`` (and ``output_item.done``),
Anthropic in the ``content_block_start`` ``input``, Bedrock in one
``toolUse`` delta. Gemini and Ollama always send calls whole.
"""

from __future__ import annotations

import json
from typing import Any

from readers import sse_payloads

from chatcodec._eventstream import EventStreamReader, encode_message

_SSE = {"openai", "anthropic", "openai-responses"}


def whole_arguments(family: str, raw: bytes) -> bytes:
    """``raw`` with every call's arguments sent at once, as ``family``'s servers may."""
    if family == "bedrock":
        return _bedrock(raw)
    if family not in _SSE:
        return raw
    payloads = sse_payloads(raw)
    if family == "openai":
        events = _openai(payloads)
    elif family == "anthropic":
        events = _anthropic(payloads)
    else:
        events = [(n, d) for n, d in payloads if n != "response.function_call_arguments.delta"]
    out = b""
    for name, data in events:
        head = b"event: " + name.encode() + b"\n" if name is not None else b""
        out += head + b"data: " + data + b"\n\n"
    return out


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _openai(payloads: list[tuple[str | None, bytes]]) -> list[tuple[str | None, bytes]]:
    chunks = [(name, data, _parsed(data)) for name, data in payloads]
    joined: dict[tuple[int, int], str] = {}
    for _, _, chunk in chunks:
        for key, call in _openai_calls(chunk):
            arguments = (call.get("function") or {}).get("arguments")
            if type(arguments) is str:
                joined[key] = joined.get(key, "") + arguments
    first: set[tuple[int, int]] = set()
    out: list[tuple[str | None, bytes]] = []
    for name, data, chunk in chunks:
        calls = list(_openai_calls(chunk))
        if not calls:
            out.append((name, data))
            continue
        for key, call in calls:
            function = call.setdefault("function", {})
            if key not in first:
                first.add(key)
                if key in joined:
                    function["arguments"] = joined[key]
            else:
                function.pop("arguments", None)
        out.append((name, json.dumps(chunk).encode()))
    return out


def _openai_calls(chunk: Any) -> list[tuple[tuple[int, int], dict[str, Any]]]:
    found: list[tuple[tuple[int, int], dict[str, Any]]] = []
    if type(chunk) is not dict:
        return found
    for place, choice in enumerate(chunk.get("choices") or ()):
        delta = choice.get("delta") if type(choice) is dict else None
        calls = delta.get("tool_calls") if type(delta) is dict else None
        for call in calls if type(calls) is list else ():
            if type(call) is dict and type(call.get("index")) is int:
                found.append(((choice.get("index", place), call["index"]), call))
    return found


def _anthropic(payloads: list[tuple[str | None, bytes]]) -> list[tuple[str | None, bytes]]:
    events = [(name, data, _parsed(data)) for name, data in payloads]
    joined: dict[int, str] = {}
    for _, _, event in events:
        if type(event) is dict and event.get("type") == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "input_json_delta":
                index = event["index"]
                joined[index] = joined.get(index, "") + delta.get("partial_json", "")
    # Only an input that is a JSON object can sit whole in the block's start.
    joined = {k: v for k, v in joined.items() if type(_parsed(v.encode() or b"{}")) is dict}
    out: list[tuple[str | None, bytes]] = []
    for name, data, event in events:
        kind = event.get("type") if type(event) is dict else None
        delta = event.get("delta") if kind == "content_block_delta" else None
        if (
            type(delta) is dict
            and delta.get("type") == "input_json_delta"
            and event["index"] in joined
        ):
            continue
        if kind == "content_block_start" and event["index"] in joined:
            block = event["content_block"]
            text = joined[event["index"]]
            block["input"] = json.loads(text) if text.strip() else {}
            data = json.dumps(event).encode()
        out.append((name, data))
    return out


def _bedrock(raw: bytes) -> bytes:
    frames = EventStreamReader().feed(raw)
    joined: dict[int, str] = {}
    for frame in frames:
        if frame.headers.get(":event-type") == "contentBlockDelta":
            payload = json.loads(frame.payload)
            use = (payload.get("delta") or {}).get("toolUse")
            if type(use) is dict and type(use.get("input")) is str:
                index = payload["contentBlockIndex"]
                joined[index] = joined.get(index, "") + use["input"]
    out = b""
    sent: set[int] = set()
    for frame in frames:
        payload_bytes = frame.payload
        if frame.headers.get(":event-type") == "contentBlockDelta":
            payload = json.loads(frame.payload)
            use = (payload.get("delta") or {}).get("toolUse")
            index = payload.get("contentBlockIndex")
            if type(use) is dict and index in joined:
                if index in sent:
                    continue
                sent.add(index)
                use["input"] = joined[index]
                payload_bytes = json.dumps(payload).encode()
        out += encode_message(frame.headers, payload_bytes)
    return out
