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

from .._cache import CACHE_TTLS, CachePoint
from .._exchange import Request
from ._wire import Encoding

__all__ = [
    "CACHE_CONTROL",
    "NO_CACHE",
    "cache_control",
    "cache_points",
    "read_cache_control",
    "report_cache",
    "take_cache",
]

CACHE_CONTROL = "cache_control"
"""Anthropic's key (and the OpenAI gateways') for a cache point on a block."""

NO_CACHE = "{} has no cache points: the provider caches by itself or not at all"
"""The loss of a cache point, formatted with the target family's name."""

_KEYS = frozenset({"type", "ttl"})
_EPHEMERAL = {"type": "ephemeral"}
_BY_TTL = {ttl: CachePoint(ttl=ttl) for ttl in CACHE_TTLS}
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
        return dict(_EPHEMERAL)
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


def _has(record: object) -> bool:
    return getattr(record, "cache", None) is not None


def report_cache(request: Request, enc: Encoding) -> None:
    """Report each cache point of ``request`` as lost (a family without them)."""
    if enc.losses is None:
        return  # nobody asked: no scan
    reason = NO_CACHE.format(enc.provider)
    for path in cache_points(request):
        enc.lose(path, reason)
