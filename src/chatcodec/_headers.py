"""HTTP messages without I/O: headers, a request to send, and ``Retry-After``.

Nothing here opens a socket. :class:`Headers` is an ordered, case-insensitive
mapping that any HTTP client takes as it is (it is a ``Mapping[str, str]``);
its ``repr`` shows the names of the headers that hold credentials but never
their values, so a request can be logged. :class:`HTTPRequest` is what
:func:`chatcodec.http.build_request` returns: method, URL, headers, body.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC
from typing import Any

__all__ = ["SECRET_HEADERS", "HTTPRequest", "HTTPResponse", "Headers", "retry_after"]

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "x-goog-api-key",
        "api-key",
        "cookie",
        "set-cookie",
        "x-amz-security-token",
    }
)
"""Header names (lower case) whose values are credentials, never shown."""

REDACTED = "[redacted]"


def _text(value: str | bytes) -> str:
    # HTTP/1.1 header bytes are Latin-1 (RFC 9110 5.5); httpx and ASGI hand bytes.
    return value.decode("latin-1") if isinstance(value, bytes) else value


class Headers(Mapping[str, str]):
    """HTTP headers: ordered, names compared without case, credentials never shown.

    Built from a mapping or from ``(name, value)`` pairs (``str`` or
    ``bytes``, as ASGI and httpx give them). Reading a name that occurs more
    than once gives its values joined by ``", "`` (RFC 9110 5.3).
    ``repr`` and ``str`` show the value of every header except those in
    :data:`SECRET_HEADERS` (``authorization``, ``x-api-key``...), shown as
    ``[redacted]``.

    Examples
    --------
    >>> from chatcodec.http import Headers
    >>> headers = Headers({"Content-Type": "application/json", "X-Api-Key": "sk-123"})
    >>> headers["content-type"], "x-api-key" in headers
    ('application/json', True)
    >>> headers
    Headers({'content-type': 'application/json', 'x-api-key': '[redacted]'})
    """

    __slots__ = ("_index", "_items")

    def __init__(
        self,
        headers: Mapping[str, str] | Mapping[bytes, bytes] | Iterable[tuple[Any, Any]] = (),
    ) -> None:
        pairs: Iterable[tuple[Any, Any]]
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        self._items: list[tuple[str, str]] = []
        self._index: dict[str, str] = {}
        for name, value in pairs:
            key, text = _text(name).lower(), _text(value)
            self._items.append((key, text))
            seen = self._index.get(key)
            self._index[key] = text if seen is None else f"{seen}, {text}"

    def __getitem__(self, name: str) -> str:
        return self._index[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Headers):
            return self._items == other._items
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking mapping: not hashable

    def raw(self) -> list[tuple[str, str]]:
        """Every ``(name, value)`` pair in order, names in lower case, repeats kept."""
        return list(self._items)

    def __repr__(self) -> str:
        shown = {key: REDACTED if key in SECRET_HEADERS else value for key, value in self._items}
        return f"Headers({shown!r})"

    __str__ = __repr__


class HTTPRequest:
    """An HTTP request to send: method, URL, headers and body.

    Sans-IO: send it with any client, e.g. ``httpx.post(r.url,
    headers=r.headers, content=r.body)``. ``repr`` shows the body's size,
    not its content, and no credential (see :class:`Headers`).

    Attributes
    ----------
    method : str
        ``"POST"``.
    url : str
        The whole URL: base URL, operation path and query.
    headers : Headers
        Content type, accept, version, beta flags and the API key header.
    body : bytes
        The JSON body.
    stream : bool
        Whether the answer will be a stream (read it with
        :func:`chatcodec.http.read_stream`).
    """

    __slots__ = ("body", "headers", "method", "stream", "url")

    def __init__(
        self, method: str, url: str, headers: Headers, body: bytes, *, stream: bool = False
    ) -> None:
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.stream = stream

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HTTPRequest):
            return NotImplemented
        mine = (self.method, self.url, self.headers, self.body, self.stream)
        return mine == (other.method, other.url, other.headers, other.body, other.stream)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"HTTPRequest(method={self.method!r}, url={self.url!r}, headers={self.headers!r}, "
            f"body=<{len(self.body)} bytes>, stream={self.stream!r})"
        )

    __str__ = __repr__


class HTTPResponse:
    """An HTTP answer to send: status, headers and body (an error a gateway passes on).

    Attributes
    ----------
    status : int
        The HTTP status.
    headers : Headers
        Content type, and the family's headers for the error's type and wait.
    body : bytes
        The JSON body.
    """

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: Headers, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HTTPResponse):
            return NotImplemented
        mine = (self.status, self.headers, self.body)
        return mine == (other.status, other.headers, other.body)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"HTTPResponse(status={self.status!r}, headers={self.headers!r}, "
            f"body=<{len(self.body)} bytes>)"
        )

    __str__ = __repr__


MAX_WAIT = float(2**32)
"""The longest wait taken, in seconds (about 136 years); a longer one is no usable wait.

``time.sleep`` refuses waits past what the platform's clock counts (about 292
years: ``time.sleep(1e10)`` raises ``OverflowError``), and a retry loop must be
able to sleep on any wait it is given.
"""


def usable_wait(value: float) -> float | None:
    """``value`` if a caller can wait that many seconds (0 to :data:`MAX_WAIT`), else None."""
    return value if 0 <= value <= MAX_WAIT else None  # NaN compares false: None


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return usable_wait(value)


def retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """How many seconds an answer asks to wait before trying again, or None.

    ``retry-after-ms`` (milliseconds, sent by OpenAI and Azure) wins over
    ``Retry-After``, which is a number of seconds or an HTTP-date (RFC 9110
    10.2.3); a date is counted from ``now`` (a POSIX timestamp, the clock by
    default), and one already past gives 0. A value that is neither gives None,
    and so does an unusable one: a date no calendar can hold (a year past
    9999, a day 40 of a month...), or a wait longer than :data:`MAX_WAIT`
    (about 136 years; ``time.sleep`` refuses waits not much longer). An
    unusable ``Retry-After`` is ignored, never an error: a retry loop reading
    it always gets a wait it can sleep on, or None.

    Examples
    --------
    >>> from chatcodec.http import retry_after
    >>> retry_after({"Retry-After": "7"}), retry_after({"retry-after-ms": "1500"})
    (7.0, 1.5)
    >>> retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:30 GMT"}, now=1445412480.0)
    30.0
    """
    if not isinstance(headers, Headers):
        headers = Headers(headers)
    ms = headers.get("retry-after-ms")
    if ms is not None and (value := _seconds(ms.strip())) is not None:
        return value / 1000  # at most MAX_WAIT milliseconds: usable seconds
    text = headers.get("retry-after")
    if text is None:
        return None
    text = text.strip()
    if (value := _seconds(text)) is not None:
        return value
    try:
        when = email.utils.parsedate_to_datetime(text)
        # parsedate_to_datetime gives a naive datetime for "-0000": it is UTC.
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        stamp = when.timestamp()
    # OverflowError: a year or day past a C int ("21 Oct 99999999999").
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    clock = time.time() if now is None else now
    return usable_wait(max(0.0, stamp - clock))
