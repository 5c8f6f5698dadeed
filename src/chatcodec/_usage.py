"""Token usage and finish reasons, in the normalized forms providers map into."""

from __future__ import annotations

import enum

from ._errors import ValidationError
from ._record import Record

__all__ = ["FinishReason", "Usage"]


class FinishReason(enum.StrEnum):
    """Why the model stopped, normalized across providers.

    A provider's own reason (``end_turn``, ``MAX_TOKENS``...) maps to one of
    these; responses keep the raw value beside it.
    """

    STOP = "stop"
    LENGTH = "length"
    TOOL_CALLS = "tool_calls"
    CONTENT_FILTER = "content_filter"
    ERROR = "error"
    OTHER = "other"


class Usage(Record, frozen=True):
    """Token counts of one response (or, summed with ``+``, of several).

    The counts mean the same for every provider:

    - ``prompt_tokens``: every input token, those read from a cache and
      those written to one included;
    - ``completion_tokens``: every output token, reasoning included;
    - ``cached_tokens``, ``cache_write_tokens``: the part of the prompt read
      from, and written to, the provider's cache;
    - ``reasoning_tokens``: the part of the completion spent on reasoning.

    ``None`` means the provider did not say. ``total_tokens`` is the
    provider's own total, and :attr:`total` falls back to prompt plus
    completion.

    Examples
    --------
    >>> (Usage(10, 5) + Usage(3, 2, cached_tokens=1)).total
    20
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    cache_write_tokens: int | None = None

    def __post_init__(self) -> None:
        # One comparison per field, no loop: this runs for every response.
        if self.prompt_tokens < 0 or self.completion_tokens < 0:
            raise ValidationError("must not be negative", _negative(self))
        total, cached, reasoning = self.total_tokens, self.cached_tokens, self.reasoning_tokens
        written = self.cache_write_tokens
        if (
            (total is not None and total < 0)
            or (cached is not None and cached < 0)
            or (reasoning is not None and reasoning < 0)
            or (written is not None and written < 0)
        ):
            raise ValidationError("must not be negative", _negative(self))

    @property
    def total(self) -> int:
        """``total_tokens`` as given, else prompt plus completion."""
        if self.total_tokens is not None:
            return self.total_tokens
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total + other.total,
            _add(self.cached_tokens, other.cached_tokens),
            _add(self.reasoning_tokens, other.reasoning_tokens),
            _add(self.cache_write_tokens, other.cache_write_tokens),
        )


def _negative(usage: Usage) -> str:
    for name in ("prompt_tokens", "completion_tokens", *_OPTIONAL):
        value = getattr(usage, name)
        if value is not None and value < 0:
            return f"$.{name}"
    return "$"


_OPTIONAL = ("total_tokens", "cached_tokens", "reasoning_tokens", "cache_write_tokens")


def _add(a: int | None, b: int | None) -> int | None:
    if a is None and b is None:
        return None
    return (a or 0) + (b or 0)
