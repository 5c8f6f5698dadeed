"""Cache points on the wire: Anthropic's ``cache_control`` form, and the shared scans.

Anthropic writes a cache point as ``"cache_control": {"type": "ephemeral"}``
(with a ``"ttl"`` of ``"5m"`` or ``"1h"``) on the block it closes; the
OpenAI-compatible gateways that pass it on to Claude (OpenRouter, LiteLLM)
take the same object on a content part or a tool. Only that form becomes a
:class:`~chatcodec.CachePoint`: another (an unknown type, another key) stays
in ``extras`` as sent. Bedrock's ``cachePoint`` block is its own family's
fact (``bedrock/_blocks.py``).

:func:`cache_points` lists where a request has cache points, for the
families' limits; :func:`report_cache` reports each one to a family that
has no place for it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .._cache import CACHE_TTLS, Cacheable, CachePoint
from .._content import TextPart
from .._exchange import Request
from .._frozen import FrozenMap
from .._loss import Loss
from .._messages import DeveloperMessage, SystemMessage, ToolMessage
from ._wire import Encoding

CACHE_LIMITS = FrozenMap({"anthropic": 4, "bedrock": 4})
"""The most cache points a request may hold, by family (more is refused with a 400)."""

__all__ = [
    "AUTOMATIC_CACHE",
    "CACHE_CONTROL",
    "CACHE_LIMITS",
    "NO_CACHE",
    "cache_control",
    "cache_limit",
    "cache_points",
    "carry_automatic_cache",
    "count_cache",
    "read_cache_control",
    "report_cache",
    "take_cache",
    "trim_cache",
]

CACHE_CONTROL = "cache_control"
"""Anthropic's key (and the OpenAI gateways') for a cache point on a block."""

NO_CACHE = "{} has no cache points: the provider caches by itself or not at all"
"""The loss of a cache point, formatted with the target family's name."""

_REASONS = FrozenMap(
    {"gemini": "gemini has no cache points: it caches by reference (a cachedContent made apart)"}
)
_KEYS = frozenset({"type", "ttl"})
_BY_TTL = FrozenMap({ttl: CachePoint(ttl=ttl) for ttl in CACHE_TTLS})
_PLAIN = CachePoint()


def read_cache_control(value: Any) -> CachePoint | None:
    """The cache point a ``cache_control`` value says, or None for another form."""
    if type(value) is not dict or value.get("type") != "ephemeral":
        return None
    if len(value) == 1:
        return _PLAIN
    ttl = value.get("ttl")
    if len(value) == 2 and type(ttl) is str and value.keys() == _KEYS:
        return _BY_TTL.get(ttl)
    return None


def cache_control(point: CachePoint) -> dict[str, Any]:
    """The ``cache_control`` object of ``point``."""
    if point.ttl is None:
        return {"type": "ephemeral"}
    return {"type": "ephemeral", "ttl": point.ttl}


def take_cache(rest: dict[str, Any] | None) -> tuple[CachePoint | None, dict[str, Any] | None]:
    """A block's leftover keys without its ``cache_control``, and the cache point it said.

    ``rest`` is a fresh dict of the keys the decoder does not map (it may be
    changed); a ``cache_control`` of another form stays in it.
    """
    if rest is None or CACHE_CONTROL not in rest:
        return None, rest
    point = read_cache_control(rest[CACHE_CONTROL])
    if point is None:
        return None, rest
    del rest[CACHE_CONTROL]
    return point, rest or None


def cache_points(request: Request) -> list[str]:
    """The path of each cache point of ``request``, in the order of the prompt.

    Tools come first (the providers put them before the system prompt),
    then each message's own, its parts' and its tool calls'.
    """
    found = [f"$.tools[{k}].cache" for k, tool in enumerate(request.tools) if _has(tool)]
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        if _has(message):
            found.append(path + ".cache")
        content = getattr(message, "content", None)
        if type(content) is tuple:
            found += [f"{path}.content[{j}].cache" for j, part in enumerate(content) if _has(part)]
        for j, call in enumerate(getattr(message, "tool_calls", ())):
            if call.cache is not None:
                found.append(f"{path}.tool_calls[{j}].cache")
    return found


def count_cache(request: Request) -> int:
    """How many cache points ``request`` has: :func:`cache_points` without the paths.

    One scan with no call per record: it runs on every converted request.
    """
    n = 0
    for tool in request.tools:
        if getattr(tool, "cache", None) is not None:
            n += 1
    for message in request.messages:
        if getattr(message, "cache", None) is not None:
            n += 1
        content = getattr(message, "content", None)
        if type(content) is tuple:
            for part in content:
                if getattr(part, "cache", None) is not None:
                    n += 1
        for call in getattr(message, "tool_calls", ()):
            if call.cache is not None:
                n += 1
    return n


def _has(record: object) -> bool:
    return getattr(record, "cache", None) is not None


def report_cache(request: Request, enc: Encoding) -> None:
    """Report each cache point of ``request`` as lost (a family without them)."""
    if enc.losses is None:
        return  # nobody asked: no scan
    reason = _REASONS.get(enc.provider) or NO_CACHE.format(enc.provider)
    for path in cache_points(request):
        enc.lose(path, reason)


def cache_limit(family: str, model: str | None) -> int | None:
    """The most cache points ``family`` takes for ``model``; None when no limit is known.

    A gateway on the OpenAI Chat wire (OpenRouter, LiteLLM) passes the cache
    points of a request for a Claude model on to Anthropic or Bedrock, whose
    limit holds.

    Examples
    --------
    >>> cache_limit("anthropic", None), cache_limit("openai", "anthropic/claude-sonnet-4.5")
    (4, 4)
    >>> cache_limit("openai", "google/gemini-2.5-pro") is None
    True
    """
    limit = CACHE_LIMITS.get(family)
    if limit is None and family == "openai" and model is not None and "claude" in model:
        return CACHE_LIMITS["anthropic"]
    return limit


def trim_cache(request: Request, target: str, losses: list[Loss]) -> Request:
    """``request`` with the cache points beyond ``target``'s limit left out, each reported.

    The first ones in the prompt's order are kept: a request converted from
    another family is sent as the target takes it instead of being refused.
    """
    limit = cache_limit(target, request.model)
    if limit is None or count_cache(request) <= limit:
        return request
    found = cache_points(request)
    reason = f"{target} takes at most {limit} cache points: left out"
    if target not in CACHE_LIMITS:  # a gateway's Claude model
        reason = f"claude takes at most {limit} cache points (a gateway passes them on): left out"
    losses.extend(Loss(path, reason) for path in found[limit:])
    left = limit

    def keep(record: Any) -> Any:
        nonlocal left
        if getattr(record, "cache", None) is None:
            return record
        if left:
            left -= 1
            return record
        return msgspec.structs.replace(record, cache=None)

    tools = tuple(keep(tool) for tool in request.tools)
    messages = []
    for message in request.messages:
        message = keep(message)
        content = getattr(message, "content", None)
        if type(content) is tuple:
            message = msgspec.structs.replace(message, content=tuple(keep(p) for p in content))
        calls = getattr(message, "tool_calls", ())
        if calls:
            message = msgspec.structs.replace(message, tool_calls=tuple(keep(c) for c in calls))
        messages.append(message)
    return msgspec.structs.replace(request, tools=tools, messages=tuple(messages))


AUTOMATIC_CACHE = (
    "anthropic's automatic cache point (a top-level cache_control) has no block to close: left out"
)
"""The loss of an automatic cache point when no block of the prompt takes one."""


def carry_automatic_cache(request: Request, target: str, losses: list[Loss]) -> Request:
    """``request`` with Anthropic's automatic cache point placed where it falls.

    A top-level ``cache_control`` asks Anthropic to cache the prompt up to its
    last cacheable block; no other family has that form, but the ones with
    cache points take one there. Going to another family (``target``), it
    becomes a :class:`~chatcodec.CachePoint` on that block: from the end of
    the prompt, the first tool call, content part (a message's text, when it
    is a string) or tool message that takes one (reasoning and opaque parts
    take none). A cache point already there is the same point; a prompt with
    no such block leaves it out, reported. The key leaves the request's
    extras either way, so that it is not reported again as a field.
    """
    own = request.extras.get("anthropic") if request.extras is not None else None
    if target == "anthropic" or type(own) is not dict or CACHE_CONTROL not in own:
        return request
    point = read_cache_control(own[CACHE_CONTROL])
    if point is None:
        return request  # another form: kept, and reported as a field the target lacks
    extras = dict(request.extras or {})
    rest = {k: v for k, v in own.items() if k != CACHE_CONTROL}
    if rest:
        extras["anthropic"] = rest
    else:
        del extras["anthropic"]
    request = msgspec.structs.replace(request, extras=extras or None)
    messages = request.messages
    for i in range(len(messages) - 1, -1, -1):
        placed = _place(messages[i], point)
        if placed is not None:
            return msgspec.structs.replace(
                request, messages=(*messages[:i], placed, *messages[i + 1 :])
            )
    losses.append(Loss("$.extras.anthropic.cache_control", AUTOMATIC_CACHE))
    return request


def _place(message: Any, point: CachePoint) -> Any:
    """``message`` with ``point`` on its last block that takes one, or None if none does."""
    if isinstance(message, (ToolMessage, SystemMessage, DeveloperMessage)):
        if message.cache is not None:
            return message
        return msgspec.structs.replace(message, cache=point)
    calls = getattr(message, "tool_calls", ())
    if calls:
        call = calls[-1]
        if call.cache is None:
            call = msgspec.structs.replace(call, cache=point)
        return msgspec.structs.replace(message, tool_calls=(*calls[:-1], call))
    content = getattr(message, "content", None)
    if type(content) is str:
        return msgspec.structs.replace(message, content=(TextPart(content, cache=point),))
    if type(content) is not tuple:
        return None
    parts: tuple[Any, ...] = content
    for j in range(len(parts) - 1, -1, -1):
        part = parts[j]
        if isinstance(part, Cacheable):
            if part.cache is None:
                part = msgspec.structs.replace(part, cache=point)
            return msgspec.structs.replace(message, content=(*parts[:j], part, *parts[j + 1 :]))
    return None
