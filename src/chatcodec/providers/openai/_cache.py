"""Cache points on the OpenAI Chat wire: the gateways' ``cache_control``.

OpenAI caches prompts by itself and has no cache points; the gateways that
speak its wire to other families (OpenRouter, LiteLLM) take Anthropic's
``cache_control`` on a content part, on the last text part of an
instruction and on a tool, and pass it on. A request is written with them
when its model is routed by such a gateway: a ``vendor/model`` name other
than ``openai/...`` (OpenRouter's and LiteLLM's convention), or a Claude
model. For any other model each cache point is reported as lost.

They are written by moving each :class:`~chatcodec.CachePoint` into the
record's ``openai`` extras, as the decoder would have kept the key, so that
the encoder writes it where it writes every kept key. What has no place on
this wire (a cache point on a tool call, on the text of an answer sent as a
string, on a tool of the legacy ``functions`` form) is reported.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._content import TextPart
from ..._exchange import Request
from ..._messages import AssistantMessage, DeveloperMessage, SystemMessage, ToolMessage, UserMessage
from .._cache import CACHE_CONTROL, cache_control
from .._wire import Encoding
from ._common import NAME

__all__ = ["carry_cache", "takes_cache"]

NO_PLACE = "openai has no place for this cache point"


def takes_cache(model: str | None) -> bool:
    """Whether the model is served through a gateway that takes ``cache_control``."""
    if model is None:
        return False
    vendor, slash, _ = model.partition("/")
    return (bool(slash) and vendor != "openai") or "claude" in model


def carry_cache(request: Request, enc: Encoding) -> Request:
    """``request`` with its cache points written where this wire takes them, or reported."""
    if not _any_cache(request):
        return request  # the usual request: one scan, nothing to do
    gateway = takes_cache(request.model)
    tools = request.tools
    functions = _own(request.extras).get("~functions")
    if any(getattr(tool, "cache", None) is not None for tool in tools):
        kept = []
        for k, tool in enumerate(tools):
            if getattr(tool, "cache", None) is not None and (functions or not _goes(tool, gateway)):
                enc.lose(f"$.tools[{k}].cache", NO_PLACE if functions else NO_CACHE)
                tool = msgspec.structs.replace(tool, cache=None)
            kept.append(_kept(tool))
        tools = tuple(kept)
    out = [
        _message(message, f"$.messages[{i}]", enc, gateway)
        for i, message in enumerate(request.messages)
    ]
    return msgspec.structs.replace(request, tools=tools, messages=tuple(out))


NO_CACHE = (
    "openai has no cache points (a gateway's model, vendor/name, takes them as cache_control)"
)


def _any_cache(request: Request) -> bool:
    """Whether anything in ``request`` has a cache point (usually not: one scan)."""
    for tool in request.tools:
        if getattr(tool, "cache", None) is not None:
            return True
    for message in request.messages:
        if getattr(message, "cache", None) is not None:
            return True
        content = getattr(message, "content", None)
        if type(content) is tuple:
            for part in content:
                if getattr(part, "cache", None) is not None:
                    return True
        for call in getattr(message, "tool_calls", ()):
            if call.cache is not None:
                return True
    return False


def _goes(record: Any, gateway: bool) -> bool:
    """Whether the cache point of ``record`` is written: for a gateway, or read from this wire."""
    return gateway or _own(record.extras).get("~cache") == 1


def _own(extras: dict[str, Any] | None) -> dict[str, Any]:
    own = extras.get(NAME) if extras else None
    return own if type(own) is dict else {}


def _kept(record: Any) -> Any:
    """``record`` with its cache point as the ``cache_control`` key its extras keep."""
    cache = getattr(record, "cache", None)
    if cache is None:
        return record
    own = dict(_own(record.extras))
    own.setdefault(CACHE_CONTROL, cache_control(cache))
    return msgspec.structs.replace(record, cache=None, extras={**(record.extras or {}), NAME: own})


def _drop(record: Any, path: str, enc: Encoding, reason: str) -> Any:
    enc.lose(path + ".cache", reason)
    return msgspec.structs.replace(record, cache=None)


def _message(message: Any, path: str, enc: Encoding, gateway: bool) -> Any:
    kind = type(message)
    if kind is UserMessage or kind is ToolMessage:
        content = message.content
        if kind is ToolMessage and message.cache is not None:
            if not _goes(message, gateway):
                return _drop(message, path, enc, NO_CACHE)
            # A result's cache point: its last part's (text is sent as one part).
            last = content[-1] if type(content) is tuple and content else None
            if last is None or getattr(last, "cache", 0) is not None:
                last = TextPart(content) if type(content) is str else None
                if last is None:
                    return _drop(message, path, enc, NO_PLACE)
                content = (last,)
            content = (*content[:-1], msgspec.structs.replace(last, cache=message.cache))
            message = msgspec.structs.replace(message, content=content, cache=None)
        if type(content) is tuple and any(getattr(p, "cache", None) for p in content):
            parts = []
            for j, part in enumerate(content):
                if getattr(part, "cache", None) is not None and not _goes(part, gateway):
                    part = _drop(part, f"{path}.content[{j}]", enc, NO_CACHE)
                parts.append(_kept(part))
            message = msgspec.structs.replace(message, content=tuple(parts))
        return message
    if kind is SystemMessage or kind is DeveloperMessage:
        if message.cache is None:
            return message
        if not _goes(message, gateway):
            return _drop(message, path, enc, NO_CACHE)
        held: Any = _own(message.extras).get("~parts")
        text = message.content
        if type(held) is list and held and sum(n for n, _ in held) == len(text):
            lengths = [*held[:-1], [held[-1][0], {**held[-1][1]}]]
        else:
            lengths = [[len(text), {}]]
        lengths[-1][1].setdefault(CACHE_CONTROL, cache_control(message.cache))
        own = {**_own(message.extras), "~parts": lengths}
        return msgspec.structs.replace(
            message, cache=None, extras={**(message.extras or {}), NAME: own}
        )
    if kind is AssistantMessage:
        content = message.content
        listed = _own(message.extras).get("~content") == "parts"
        if type(content) is tuple and any(getattr(p, "cache", None) for p in content):
            parts = []
            for j, part in enumerate(content):
                if getattr(part, "cache", None) is not None:
                    if not listed:
                        part = _drop(part, f"{path}.content[{j}]", enc, NO_PLACE)
                    elif not _goes(part, gateway):
                        part = _drop(part, f"{path}.content[{j}]", enc, NO_CACHE)
                parts.append(_kept(part))
            message = msgspec.structs.replace(message, content=tuple(parts))
        if any(call.cache is not None for call in message.tool_calls):
            calls = tuple(
                _drop(call, f"{path}.tool_calls[{j}]", enc, NO_PLACE)
                if call.cache is not None
                else call
                for j, call in enumerate(message.tool_calls)
            )
            message = msgspec.structs.replace(message, tool_calls=calls)
        return message
    return message
