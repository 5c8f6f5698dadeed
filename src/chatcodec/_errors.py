"""The one error tree of chatcodec.

::

    ChatCodecError
     ├── ValidationError (ValueError)     a value breaks a rule; ``path`` and ``rule``
     │    ├── OrderingError               a message breaks a history rule; ``index``
     │    ├── UntrustedInputError         untrusted input tried to cross the trust boundary
     │    └── ArgumentTypeError           a tool argument has the wrong type
     ├── MissingArgumentError (KeyError)  a tool call has no such argument
 ├── NotFoundError (KeyError)         a history has no record or call with that id
     ├── DepthError (ValueError)          a value nests deeper than MAX_DEPTH; ``path``, ``rule``
     ├── DecodeError (ValueError)         the bytes are not JSON / msgpack at all
     ├── EncodeError (TypeError)          a value has no wire form
     ├── StreamError (ValueError)         a stream broke, was cut off or went past a limit;
 │                                    ``partial``, ``provider``, ``type``, ``code``, ``kind``,
 │                                    ``limit``
     ├── LossError (ValueError)           a strict conversion would lose data; ``losses``
     └── ProviderError (RuntimeError)     a provider answered with an error body;
                                          ``status``, ``type``, ``code``, ``kind``, ``retry_after``

Every message names a JSON path and a rule and never the content of a message:
content is private and untrusted.  msgspec echoes some input values in its own
messages (an unknown tag, an unknown field name); :func:`from_msgspec` rewrites
those before they reach a caller.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ._error_kinds import RETRYABLE, ErrorKind, error_kind

__all__ = [
    "DECODE_FAILURES",
    "ArgumentTypeError",
    "ChatCodecError",
    "DecodeError",
    "DepthError",
    "EncodeError",
    "LossError",
    "MissingArgumentError",
    "NotFoundError",
    "OrderingError",
    "ProviderError",
    "StreamError",
    "UntrustedInputError",
    "ValidationError",
]


class ChatCodecError(Exception):
    """Base class of every error chatcodec raises."""


class ValidationError(ChatCodecError, ValueError):
    """A value breaks one of chatcodec's rules.

    Attributes
    ----------
    rule : str
        What the rule requires, e.g. ``"must not be empty"``.
    path : str
        JSON path of the offending value, e.g. ``"$[2].content"``.
    """

    def __init__(self, rule: str, path: str = "$") -> None:
        self.rule = rule
        self.path = path
        super().__init__(f"{rule} - at `{path}`")

    def __reduce__(self) -> tuple[type[ValidationError], tuple[str, str]]:
        return (type(self), (self.rule, self.path))


class OrderingError(ValidationError):
    """A message cannot follow the messages before it.

    Attributes
    ----------
    index : int
        Position of the offending message in the sequence.
    """

    def __init__(self, rule: str, index: int, path: str | None = None) -> None:
        self.index = index
        super().__init__(rule, f"$[{index}]" if path is None else path)

    def __reduce__(self) -> tuple[type[OrderingError], tuple[str, int, str]]:  # type: ignore[override]
        return (type(self), (self.rule, self.index, self.path))


class UntrustedInputError(ValidationError):
    """Untrusted input was refused at the trust boundary."""


class DepthError(ChatCodecError, ValueError):
    """A JSON value nests arrays and objects deeper than chatcodec walks.

    The limit is 128 levels, the outermost array or object counted. It
    applies to the values chatcodec walks itself (a tool's schema, a tool
    call's arguments), where they enter: a decoder refuses the whole body.
    A tool's schema and a response format's schema are refused where they
    are built. An encoder refuses so a value a caller built too deep to
    write (in a record's ``extras``), naming where the record holds it.
    Not a :class:`ValidationError`, which a decoder may answer by keeping a
    value as sent: a value too deep to walk cannot be kept either.

    Attributes
    ----------
    limit : int
        The limit the value went past (128).
    rule : str
        The limit, as a rule: ``"must not nest arrays and objects more than
        128 deep"``.
    path : str
        JSON path of the value, e.g. ``"$.tools[0].function.parameters"``.
    """

    def __init__(self, limit: int, path: str = "$") -> None:
        self.limit = limit
        self.rule = f"must not nest arrays and objects more than {limit} deep"
        self.path = path
        super().__init__(f"{self.rule} - at `{path}`")

    def __reduce__(self) -> tuple[type[DepthError], tuple[int, str]]:
        return (type(self), (self.limit, self.path))


class ArgumentTypeError(ValidationError):
    """A tool-call argument does not have the requested type."""


class MissingArgumentError(ChatCodecError, KeyError):
    """A tool call has no argument of that name.

    Attributes
    ----------
    key : str
        The argument that was asked for (the caller's own key, not content).
    """

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)

    def __str__(self) -> str:
        return f"no argument {self.key!r} - at `$.arguments`"


class NotFoundError(ChatCodecError, KeyError):
    """No record, tool call or codec has the id or name that was asked for.

    Attributes
    ----------
    id : str
        The id or name that was asked for (the caller's own, not content).
    what : str
        ``"record"``, ``"tool call"``, ``"tool call slot"`` (a slot of a
        :class:`~chatcodec.ToolCallAccumulator`; ``id`` is the slot asked
        for, written as Python writes it) or ``"codec"``.
    known : tuple of str
        The names that exist, when there are few enough to list (codecs).
    """

    def __init__(self, id: str, what: str = "record", known: tuple[str, ...] = ()) -> None:
        self.id = id
        self.what = what
        self.known = known
        super().__init__(id)

    def __str__(self) -> str:
        if self.what == "codec":
            return f"no codec named {self.id!r}; known: {', '.join(self.known)}"
        if self.what == "tool call slot":
            return f"no tool call is in slot {self.id} - at `$.tool_calls`"
        return f"no {self.what} has the id {self.id!r}"

    def __reduce__(self) -> Any:
        return (NotFoundError, (self.id, self.what, self.known))


class DecodeError(ChatCodecError, ValueError):
    """The input is not well-formed JSON or msgpack."""


class EncodeError(ChatCodecError, TypeError):
    """A value cannot be written to the wire format."""


class StreamError(ChatCodecError, ValueError):
    """A stream broke (an error event, malformed framing) or was used out of order.

    Attributes
    ----------
    partial : Response or None
        What the stream had delivered before it broke, when a stream decoder
        raised the error.
    provider : str or None
        The provider that sent an error event inside the stream
        (``"anthropic"``...), else None.
    type : str or None
        That error's type, as the provider named it (``"overloaded_error"``).
    code : str, int or None
        That error's code, or the HTTP status the provider put in it.
    limit : str or None
        The limit the stream went past (``"max_line"``...), else None.
    """

    @property
    def kind(self) -> ErrorKind | None:
        """What the provider's error event means (see :attr:`ProviderError.kind`).

        None when no provider sent an error event (the stream was cut, broke
        its framing or went past a limit).
        """
        if self.provider is None:
            return None
        return error_kind(None, self.type, self.code, None)

    def __init__(
        self,
        message: str,
        *,
        partial: Any = None,
        provider: str | None = None,
        type: str | None = None,
        code: str | int | None = None,
        limit: str | None = None,
    ) -> None:
        self.partial = partial
        self.provider = provider
        self.type = type
        self.code = code
        self.limit = limit
        super().__init__(message)

    def __reduce__(self) -> Any:
        fields = {"provider": self.provider, "type": self.type, "code": self.code}
        return (_stream_error, (str(self), self.partial, fields | {"limit": self.limit}))


class ProviderError(ChatCodecError, RuntimeError):
    """A provider answered with an error body instead of a result.

    ``str()`` names the provider, the HTTP status and the error's type or
    code; the provider's own message (which may quote the request) is kept
    apart in :attr:`message`.

    Attributes
    ----------
    provider : str
        ``"openai"``, ``"anthropic"``...
    type : str or None
        The provider's error type (``"invalid_request_error"``...).
    code : str, int or None
        The provider's error code, or HTTP status it puts in the body.
    message : str or None
        The provider's message, as sent.
    param : str or None
        The request parameter the provider blames (OpenAI).
    body : object
        The whole error body, parsed (None when it was not JSON).
    status : int or None
        The HTTP status of the answer, when it was read from HTTP
        (:mod:`chatcodec.http`).
    retry_after : float or None
        How many seconds the provider asked to wait before trying again
        (``Retry-After``, ``retry-after-ms``), when it said so.

    Examples
    --------
    >>> error = ProviderError("openai", type="insufficient_quota",
    ...                       code="insufficient_quota", status=429)
    >>> error.kind, error.retryable
    ('quota', False)
    >>> ProviderError("bedrock", type="ThrottlingException", status=429).kind
    'rate_limit'
    """

    @property
    def kind(self) -> ErrorKind:
        """What the error means, in words every family shares.

        One of ``"invalid_request"``, ``"context_length"`` (the prompt is
        over the model's context), ``"content_filter"``,
        ``"request_too_large"``, ``"auth"`` (no key, or a bad one),
        ``"permission"``, ``"not_found"`` (the model or the route),
        ``"quota"`` (out of credit or over a quota: trying again will not
        help), ``"rate_limit"``, ``"overloaded"``, ``"timeout"``,
        ``"server"``, or ``"unknown"`` when neither the provider's names nor
        the status say. The provider's own names stay in :attr:`type` and
        :attr:`code`; the family tables are in the README.
        """
        return error_kind(self.status, self.type, self.code, self.message)

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later.

        True for a rate limit, an overloaded or timed-out model, and a server
        error; wait :attr:`retry_after` first when it is set.
        """
        return self.kind in RETRYABLE

    def __init__(
        self,
        provider: str,
        *,
        type: str | None = None,
        code: str | int | None = None,
        message: str | None = None,
        param: str | None = None,
        body: object = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.provider = provider
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.body = body
        self.status = status
        self.retry_after = retry_after
        status_text = None if status is None else f"HTTP {status}"
        parts = (status_text, type, code)
        kind = " ".join(str(part) for part in parts if part is not None) or "error"
        super().__init__(f"{provider} answered with an error: {kind}")

    def __reduce__(self) -> Any:
        fields: dict[str, Any] = {"type": self.type, "code": self.code}
        fields |= {"message": self.message, "param": self.param, "body": self.body}
        fields |= {"status": self.status, "retry_after": self.retry_after}
        return (_provider_error, (self.provider, fields))


def _stream_error(message: str, partial: Any, fields: Any = None) -> StreamError:
    return StreamError(message, partial=partial, **(fields or {}))


def _provider_error(provider: str, fields: dict[str, Any]) -> ProviderError:
    return ProviderError(provider, **fields)


class LossError(ChatCodecError, ValueError):
    """A strict conversion would lose something the target cannot carry.

    Attributes
    ----------
    losses : tuple of Loss
        Everything that would be lost, by path and reason.
    """

    def __init__(self, losses: tuple[Any, ...]) -> None:
        self.losses = losses
        first = losses[0] if losses else None
        where = f": {first}" if first is not None else ""
        more = f" (and {len(losses) - 1} more)" if len(losses) > 1 else ""
        super().__init__(f"the conversion would lose data{where}{more}")

    def __reduce__(self) -> Any:
        return (type(self), (self.losses,))


# msgspec messages that quote a value taken from the input. Each is replaced
# by the same sentence without the value.
_ECHOES = (
    (re.compile(r"^Invalid enum value .*$", re.S), "Invalid enum value"),
    (re.compile(r"^Invalid value .*$", re.S), "Invalid value"),
    (re.compile(r"^Object contains unknown field .*$", re.S), "Object contains unknown field"),
)
_AT = re.compile(r" - at `(\$[^`]*)`$")
# msgpack maps may have keys of any type; msgspec says "- at `key` in `$.x`".
_AT_KEY = re.compile(r" - at `key` in `(\$[^`]*)`$")

#: Everything a decode of untrusted bytes may raise besides our own errors:
#: msgspec's errors, bad UTF-8 (or an unpaired surrogate in a str), and input
#: nested deeper than the interpreter's recursion limit.
DECODE_FAILURES = (msgspec.DecodeError, UnicodeError, RecursionError)


def _scrub(message: str) -> str:
    for pattern, replacement in _ECHOES:
        if pattern.match(message):
            return replacement
    return message


_SCAN = msgspec.json.Decoder(msgspec.Raw)  # reads the syntax of a whole document, builds nothing


def not_json(data: bytes | str | msgspec.Raw, prefix: str = "$") -> ChatCodecError | None:
    """The error for ``data`` if it is not JSON at all (malformed, not UTF-8, too deep), else None.

    A typed decoder stops at the first value of the wrong type, before it reads
    what follows: a document its types refused may still not be JSON
    (``[1 true]``), and must then be refused as such. Only error paths call this.
    """
    try:
        _SCAN.decode(data)
    except DECODE_FAILURES as exc:
        return from_msgspec(exc, prefix)
    return None


def from_msgspec(exc: Exception, prefix: str = "$") -> ChatCodecError:
    """Translate an error raised while decoding into chatcodec's tree.

    ``prefix`` replaces the leading ``$`` of msgspec's path, so that errors in a
    nested document (a JSONL line, a tool call's arguments) name their place in
    the whole.
    """
    if isinstance(exc, msgspec.ValidationError):
        text = str(exc)
        # msgspec appends where the error happened ("- at `$[0]`"); a rule raised
        # by one of our own __post_init__ methods already ends with the field
        # inside that object ("- at `$.content`"). Outer first, then inner.
        suffixes: list[str] = []
        if (key := _AT_KEY.search(text)) is not None:
            suffixes.append(key.group(1)[1:] + "[...]")
            text = text[: key.start()]
        while (match := _AT.search(text)) is not None and len(suffixes) < 2:
            suffixes.append(match.group(1)[1:])
            text = text[: match.start()]
        return ValidationError(_scrub(text), prefix + "".join(suffixes))
    if isinstance(exc, UnicodeError):
        return DecodeError(f"invalid UTF-8 (or an unpaired surrogate) in a string - at `{prefix}`")
    if isinstance(exc, RecursionError):
        return DecodeError(f"nested too deeply - at `{prefix}`")
    if isinstance(exc, msgspec.DecodeError):
        return DecodeError(f"{exc} - at `{prefix}`")
    return DecodeError(f"{type(exc).__name__} - at `{prefix}`")
