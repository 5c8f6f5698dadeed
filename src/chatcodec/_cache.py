"""Cache points: where a provider may cache the prompt up to.

Anthropic marks a block, a system block or a tool with ``cache_control``;
Bedrock writes a ``cachePoint`` block after the content it closes;
OpenAI-compatible gateways (OpenRouter, LiteLLM) take Anthropic's
``cache_control`` on a content part. All of them mean the same: the prompt
up to and including this piece may be cached. The canonical form holds it as
:class:`CachePoint` in the ``cache`` field of what it closes (a content
part, an instruction, a tool message, a tool call or a tool definition), so
that each family writes it where it puts it.

:class:`Cacheable` is the base of the records that take one: its field is
keyword-only, so that adding it changes no positional signature.
"""

from __future__ import annotations

from typing import Literal, get_args

from ._errors import ValidationError
from ._fields import check_choice, check_extras, is_choice
from ._record import Record

__all__ = ["CACHE_TTLS", "CachePoint", "Cacheable", "check_cache"]

CacheTtl = Literal["5m", "1h"]
CACHE_TTLS = frozenset(get_args(CacheTtl))
"""The lifetimes Anthropic and Bedrock take for a cache entry."""


class CachePoint(Record, frozen=True):
    """The prompt may be cached up to and including what carries this.

    Parameters
    ----------
    ttl : {"5m", "1h"}, optional
        How long the entry lives; ``None`` is the provider's default (five
        minutes for Anthropic and Bedrock).

    Examples
    --------
    >>> from chatcodec import SystemMessage
    >>> SystemMessage("You are a careful reviewer.", cache=CachePoint(ttl="1h"))
    SystemMessage(content=<27 chars>, cache=CachePoint(ttl=<2 chars>))
    """

    ttl: CacheTtl | None = None

    def __post_init__(self) -> None:
        if self.ttl is not None and not is_choice(self.ttl, CACHE_TTLS):
            check_choice(self.ttl, CACHE_TTLS, "$.ttl")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


def check_cache(value: object) -> None:
    """Raise unless ``value`` is a :class:`CachePoint` (its exact-type test failed)."""
    if not isinstance(value, CachePoint):
        raise ValidationError("must be a CachePoint", "$.cache")


class Cacheable(Record, frozen=True, kw_only=True):
    """Base of the records a cache point may close (see :class:`CachePoint`)."""

    cache: CachePoint | None = None
    """Where a provider may cache the prompt up to: this record, included."""
