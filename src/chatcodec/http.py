r"""HTTP for every wire family, without I/O: build the request, read the answer.

chatcodec never opens a socket (like h11): :func:`build_request` turns a
canonical :class:`~chatcodec.Request` into an :class:`HTTPRequest` (method,
URL, headers, body) for any HTTP client to send, and :func:`read_response`,
:func:`read_stream` and :func:`read_error` turn what came back (status,
headers, body) into a :class:`~chatcodec.Response`, a stream decoder, or a
:class:`~chatcodec.ProviderError` with the status, the provider's error type
and code, and how long to wait (``retry_after``).

- ``openai``: ``POST /chat/completions``, ``"stream": true`` in the body,
  ``Authorization: Bearer``; ``openai-responses``: ``POST /responses``, the same.
- ``anthropic``: ``POST /v1/messages``, ``"stream": true``, ``x-api-key``,
  ``anthropic-version`` and the ``anthropic-beta`` values the body needs.
- ``gemini``: ``POST /models/{model}:generateContent``, or
  ``:streamGenerateContent?alt=sse`` (SSE), ``x-goog-api-key``.
- ``ollama``: ``POST /api/chat``, ``"stream": true`` or ``false``; a key
  (Ollama's cloud, a proxy) as ``Authorization: Bearer``.
- ``bedrock``: ``POST /model/{modelId}/converse`` or ``/converse-stream``
  (AWS event-stream), the model id escaped as one path segment.
- ``cohere``: ``POST /v2/chat``, ``"stream": true`` in the body (SSE),
  ``Authorization: Bearer``.

Bedrock requests are signed with AWS Signature Version 4, which needs the
caller's credentials and the clock: chatcodec leaves that to the caller
(botocore's ``SigV4Auth(credentials, "bedrock", region).add_auth(AWSRequest(
method, url, data=body, headers=headers))`` signs one), and puts no key in
the request.

Examples
--------
>>> import chatcodec as cc
>>> from chatcodec import http
>>> request = cc.Request((cc.user("Hi"),), model="claude-sonnet-4-5", max_tokens=64)
>>> sent = http.build_request("anthropic", request, api_key="sk-ant-123", stream=True)
>>> sent.method, sent.url
('POST', 'https://api.anthropic.com/v1/messages')
>>> sent.headers  # doctest: +NORMALIZE_WHITESPACE
Headers({'content-type': 'application/json', 'accept': 'text/event-stream',
         'anthropic-version': '2023-06-01', 'x-api-key': '[redacted]'})
>>> sent.body
b'{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}],"stream":true}'
>>> http.read_response("anthropic", 429, {"retry-after": "20"},
...     b'{"type":"error","error":{"type":"rate_limit_error","message":"..."}}')
Traceback (most recent call last):
chatcodec.ProviderError: anthropic answered with an error: HTTP 429 rate_limit_error
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ._error_bodies import error_answer, error_event
from ._errors import ChatCodecError, DecodeError, ProviderError, StreamError, ValidationError
from ._exchange import Request, Response
from ._frozen import FrozenMap
from ._headers import SECRET_HEADERS, Headers, HTTPRequest, HTTPResponse, retry_after
from ._loss import Loss
from .providers import StreamDecoder, get
from .providers._endpoints import (
    ANTHROPIC_VERSION,
    ENDPOINTS,
    JSON,
    anthropic_betas,
    body_retry_after,
    joined,
)
from .providers._options import ToolCallContent, request_options

__all__ = [
    "SECRET_HEADERS",
    "HTTPRequest",
    "HTTPResponse",
    "Headers",
    "base_url",
    "build_count_tokens_request",
    "build_error",
    "build_error_event",
    "build_request",
    "read_count_tokens",
    "read_error",
    "read_response",
    "read_stream",
    "retry_after",
]

HeadersLike = Mapping[str, str] | Mapping[bytes, bytes] | Iterable[tuple[Any, Any]]
"""Headers as any client gives them: a mapping, or (name, value) pairs of str or bytes."""

_ANY = msgspec.json.Decoder()
_ENCODE = msgspec.json.Encoder().encode


def base_url(family: str, *, region: str = "us-east-1") -> str:
    """The documented base URL of a family's API (``region`` for Bedrock).

    Examples
    --------
    >>> from chatcodec import http
    >>> http.base_url("gemini"), http.base_url("bedrock", region="eu-west-3")
    ('https://generativelanguage.googleapis.com/v1beta', 'https://bedrock-runtime.eu-west-3.amazonaws.com')

    A service speaking OpenAI Chat has its own (OpenAI's where it has none
    to give: Azure's is under the caller's resource):

    >>> http.base_url("deepseek")
    'https://api.deepseek.com'
    """
    codec = get(family)
    return _root(codec) or ENDPOINTS[codec.NAME].base_url.format(region=region)


def _root(codec: object) -> str | None:
    """The API root of an OpenAI Chat dialect's codec, or None."""
    dialect = getattr(codec, "DIALECT", None)
    return getattr(dialect, "base_url", None)


def build_request(
    family: str,
    request: Request,
    *,
    stream: bool | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    region: str = "us-east-1",
    anthropic_version: str = ANTHROPIC_VERSION,
    betas: Iterable[str] = (),
    include_usage: bool = False,
    headers: HeadersLike | None = None,
    losses: list[Loss] | None = None,
    tool_call_content: ToolCallContent = "omit",
) -> HTTPRequest:
    """The HTTP request that sends ``request`` to a family's API.

    Parameters
    ----------
    family : str
        A codec name (``"openai"``, ``"anthropic"``...) or a service speaking
        one: an OpenAI Chat dialect (``"deepseek"``, ``"openrouter"``,
        ``"mistral"``...) writes the body that service takes, sent to its
        own API root (Azure's and a vLLM server's: give ``base_url``).
    request : Request
        What to send. Gemini and Bedrock need ``request.model``: it is in
        their URL, escaped so that it never changes which path the request
        goes to. Bedrock's model id (an ARN too) is one path segment, every
        byte but letters, digits and ``-._~`` escaped; ``"."`` and ``".."``
        are refused (every client that normalizes a path reads them as dot
        segments however they are escaped). Gemini's model is a name
        (``"gemini-2.5-flash"``, sent as ``models/gemini-2.5-flash``) or a
        resource name (``"tunedModels/x"``) whose segments are escaped one by
        one; a name with an empty, ``.`` or ``..`` segment (``"../v1/x"``) is
        no resource name: it is one model id under ``models/``, escaped whole
        (its ``/`` and dots too), which the API answers is no model.
    stream : bool, optional
        Ask for a streamed answer; by default ``request.stream``. It sets the
        body's ``"stream"`` (OpenAI, Responses, Anthropic, Ollama, which is
        sent ``"stream": false`` otherwise, as it streams by default) or
        picks the streaming operation (Gemini, Bedrock), and the ``accept``
        header.
    api_key : str, optional
        Sent in the family's header (``Authorization: Bearer``, ``x-api-key``,
        ``x-goog-api-key``); never shown by ``repr``. Bedrock takes none: the
        caller signs the request (see the module docstring). Azure OpenAI
        takes its key as ``api-key``: pass it in ``headers``.
    base_url : str, optional
        Where the API lives; by default :func:`base_url` of the family
        (OpenAI's and the Responses API's include ``/v1``, as the OpenAI SDK's
        do, so that compatible services such as Groq's
        ``https://api.groq.com/openai/v1`` fit).
    region : str, default "us-east-1"
        Bedrock's region, for its default base URL.
    anthropic_version : str, default "2023-06-01"
        Anthropic's ``anthropic-version`` header.
    betas : iterable of str
        More ``anthropic-beta`` values; those the body needs (computer use,
        code execution, memory and context management, the MCP connector)
        are added by themselves.
    include_usage : bool, default False
        OpenAI streams only: ask for the usage-only last chunk
        (``stream_options.include_usage``).
    headers : mapping, optional
        More headers, sent after (and in place of) those built here.
    losses : list of Loss, optional
        Collects what the family cannot carry, as ``encode_request`` does.
    tool_call_content : {"omit", "null", "empty"}, default "omit"
        OpenAI Chat (and the services speaking it) only: what an assistant
        message that only calls tools sends as ``content``, as for
        :func:`chatcodec.providers.openai.encode_request`: ``"empty"`` sends
        ``""``, for servers that refuse a message without it.

    Returns
    -------
    HTTPRequest

    Raises
    ------
    ValidationError
        Gemini and Bedrock without a model; Bedrock with the model ``"."``
        or ``".."``; an ``api_key`` for Bedrock; a ``tool_call_content`` not
        one of its values, or other than ``"omit"`` for another family.
    KeyError
        A family that is no codec's.
    """
    codec = get(family)
    name = codec.NAME
    options = request_options(name, tool_call_content)
    endpoint = ENDPOINTS[name]
    streaming = bool(request.stream) if stream is None else stream
    if api_key is not None and endpoint.key_header is None:
        rule = f"must not be set: {name} requests are signed by the caller"
        raise ValidationError(rule, "api_key")
    if endpoint.stream_in_body:
        wanted: bool | None = True
        if not streaming:
            # Ollama streams unless told not to; the others do not unless told to
            # (an explicit false is kept).
            wanted = False if name == "ollama" or request.stream is False else None
        if request.stream != wanted:
            request = msgspec.structs.replace(request, stream=wanted)
    elif request.stream is not None:
        request = msgspec.structs.replace(request, stream=None)
    if name == "openai":
        request = _stream_options(request, streaming, include_usage)
    body = codec.encode_request(request, losses=losses, **options)
    root = (base_url or _root(codec) or endpoint.base_url.format(region=region)).rstrip("/")
    pairs = [("content-type", JSON), ("accept", endpoint.accept_stream if streaming else JSON)]
    if name == "anthropic":
        pairs.append(("anthropic-version", anthropic_version))
        beta = joined([*anthropic_betas(request), *betas])
        if beta:
            pairs.append(("anthropic-beta", beta))
    if api_key is not None and endpoint.key_header is not None:
        pairs.append((endpoint.key_header, endpoint.key_prefix + api_key))
    if headers is not None:
        more = Headers(headers)
        pairs = [(key, value) for key, value in pairs if key not in more]
        pairs.extend(more.raw())
    url = root + endpoint.path(request.model, streaming)
    return HTTPRequest("POST", url, Headers(pairs), body, stream=streaming)


def _stream_options(request: Request, streaming: bool, include_usage: bool) -> Request:
    """OpenAI refuses ``stream_options`` without ``"stream": true``."""
    extras = request.extras or {}
    own = extras.get("openai")
    own = dict(own) if isinstance(own, dict) else {}
    if streaming and include_usage:
        options = own.get("stream_options")
        options = dict(options) if isinstance(options, dict) else {}
        own["stream_options"] = options | {"include_usage": True}
    elif streaming or "stream_options" not in own:
        return request
    else:
        del own["stream_options"]
    rest = {key: value for key, value in extras.items() if key != "openai"}
    merged = rest | {"openai": own} if own else rest
    return msgspec.structs.replace(request, extras=merged or None)


def read_error(
    family: str,
    status: int,
    headers: HeadersLike,
    body: bytes | str,
    *,
    now: float | None = None,
) -> ProviderError:
    """The :class:`~chatcodec.ProviderError` an error answer stands for (returned, not raised).

    The provider's error type, code, message and parameter come from the
    family's documented error body (OpenAI ``{"error": {"type", "code",
    "message", "param"}}``, as Azure, DeepSeek, Groq and OpenRouter send it,
    or flat, ``{"object": "error", "message", "type", "param", "code"}``, as
    Mistral and vLLM do; Anthropic ``{"type": "error", "error": {"type",
    "message"}}``, Gemini ``{"error": {"code", "message", "status"}}``,
    Ollama ``{"error": "..."}``, Bedrock ``{"message"}`` with its type in the
    ``x-amzn-ErrorType`` header), Cohere ``{"id", "message"}``. A body that
    is not one of them (an HTML page from a proxy, an empty body) still gives
    the error, with the status and nothing else. ``retry_after`` is
    :func:`retry_after` of the headers (and Gemini's ``RetryInfo`` when they
    say nothing); ``now`` is for its HTTP-date form.

    Examples
    --------
    >>> from chatcodec import http
    >>> error = http.read_error("bedrock", 429,
    ...     {"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/"},
    ...     b'{"message":"Too many requests, please wait before trying again."}')
    >>> error.status, error.type, error.retry_after
    (429, 'ThrottlingException', None)
    >>> http.read_error("openai", 502, {}, b"<html>Bad Gateway</html>")
    ProviderError('openai answered with an error: HTTP 502')
    """
    codec = get(family)
    name = codec.NAME
    found: ProviderError | None = None
    try:
        codec.decode_response(body)
    except ProviderError as error:
        found = error
    except ChatCodecError:  # not JSON, or not the family's error shape
        found = None
    parsed: object = found.body if found is not None else _json(body)
    header = Headers(headers)
    wait = retry_after(header, now=now)
    if wait is None:
        wait = body_retry_after(name, parsed)
    kind = found.type if found is not None else None
    type_header = ENDPOINTS[name].type_header
    if kind is None and type_header is not None and (sent := header.get(type_header)):
        # "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"
        kind = sent.split(":", 1)[0].strip() or None
    return ProviderError(
        name,
        type=kind,
        code=found.code if found is not None else None,
        message=found.message if found is not None else None,
        param=found.param if found is not None else None,
        body=parsed,
        status=status,
        retry_after=wait,
    )


def build_error(family: str, error: ProviderError | StreamError) -> HTTPResponse:
    """The answer a ``family`` server gives for ``error``: status, headers and body.

    A gateway passes an upstream's error on to a client that speaks another
    family (or answers one of its own) with this. The body is the family's
    documented error shape (see :func:`read_error`), and :func:`read_error`
    of the answer gives back the error's :attr:`~chatcodec.ProviderError.kind`,
    message and wait. Within one family, the provider's type, code and status
    are kept as sent; from another, the kind picks the family's own type name
    and status (the README's table of error kinds). The error's message is
    kept (a provider's message may quote the request: it goes back to the
    client that sent it); without one, the kind in words. ``retry_after``
    becomes ``Retry-After`` (whole seconds, rounded up), and Gemini's
    ``RetryInfo`` as well.

    Parameters
    ----------
    family : str
        The family the answer is in (``"anthropic"``, a dialect's name...).
    error : ProviderError or StreamError
        The error: an upstream's, read with :func:`read_error`, or one the
        caller makes (``ProviderError("gateway", status=429, retry_after=2)``).

    Returns
    -------
    HTTPResponse

    Raises
    ------
    NotFoundError
        If no family has that name.

    Examples
    --------
    >>> import msgspec
    >>> from chatcodec import http
    >>> upstream = http.read_error("anthropic", 529, {},
    ...     b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
    >>> answer = http.build_error("openai", upstream)
    >>> answer.status, msgspec.json.decode(answer.body)["error"]  # doctest: +NORMALIZE_WHITESPACE
    (529, {'message': 'Overloaded', 'type': 'server_error', 'param': None,
           'code': 'engine_overloaded'})
    >>> http.read_error("openai", answer.status, answer.headers, answer.body).kind
    'overloaded'
    """
    status, headers, body = error_answer(get(family).NAME, error)
    return HTTPResponse(status, Headers(headers), body)


def build_error_event(family: str, error: ProviderError | StreamError) -> bytes:
    """The bytes that end a ``family`` stream with ``error``, after its status was sent.

    Once a stream's 200 and first events are out, an error can only travel as
    the family's error event: an SSE ``error`` event (Anthropic, Responses),
    a ``data:`` chunk with an ``error`` object (OpenAI Chat, Gemini), an
    NDJSON line ``{"error": ...}`` (Ollama), or an event-stream
    ``exception`` frame (Bedrock). The family's own stream decoder raises it
    as a :class:`~chatcodec.StreamError` whose ``kind`` is the error's. The
    names are chosen as :func:`build_error` chooses them; a Responses event
    says ``sequence_number`` 0.

    Raises
    ------
    NotFoundError
        If no family has that name.

    Examples
    --------
    >>> import chatcodec as cc
    >>> from chatcodec import http
    >>> error = cc.ProviderError("gemini", type="RESOURCE_EXHAUSTED", status=429,
    ...                          message="Slow down")
    >>> print(http.build_error_event("anthropic", error).decode())
    event: error
    data: {"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}
    <BLANKLINE>
    <BLANKLINE>
    """
    return error_event(get(family).NAME, error)


def _json(body: bytes | str) -> object:
    try:
        return _ANY.decode(body)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None


def _ok(status: int) -> bool:
    return 200 <= status < 300


# The fields each family's token counting endpoint takes, from its reference
# (the rest of a request, such as max_tokens or temperature, counts no token).
_ANTHROPIC_COUNTED = frozenset(
    (
        "model",
        "messages",
        "system",
        "thinking",
        "tools",
        "tool_choice",
        "mcp_servers",
        "context_management",
        "output_config",
        "output_format",
        "cache_control",
    )
)
_RESPONSES_COUNTED = frozenset(
    (
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "reasoning",
        "text",
        "truncation",
        "conversation",
        "previous_response_id",
    )
)
_BEDROCK_COUNTED = frozenset(("messages", "system", "toolConfig", "additionalModelRequestFields"))
# What each family's answer names the count.
_COUNT_KEYS = FrozenMap(
    {
        "anthropic": "input_tokens",
        "openai-responses": "input_tokens",
        "gemini": "totalTokens",
        "bedrock": "inputTokens",
    }
)
# Families with a tokenizer but no counter of a chat request: why none is built.
_NO_COUNTER = FrozenMap(
    {
        "cohere": (
            "cohere has no endpoint that counts tokens of a chat request: its /v1/tokenize "
            "splits one text, without the chat template, tools or documents a chat adds"
        ),
    }
)


def _counter(family: str) -> str:
    """The family's name, when it counts tokens; else the error that says why not."""
    name = get(family).NAME
    if name not in _COUNT_KEYS:
        why = _NO_COUNTER.get(name, f"{name} has no endpoint that counts tokens")
        raise ValidationError(why, "family")
    return name


def build_count_tokens_request(
    family: str,
    request: Request,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    region: str = "us-east-1",
    anthropic_version: str = ANTHROPIC_VERSION,
    betas: Iterable[str] = (),
    headers: HeadersLike | None = None,
    losses: list[Loss] | None = None,
) -> HTTPRequest:
    """The HTTP request that asks a family's API how many input tokens ``request`` has.

    The request is encoded as :func:`build_request` encodes it, and sent to
    the family's counting endpoint with what that endpoint takes: Anthropic
    ``POST /v1/messages/count_tokens`` (model, messages, system, tools,
    thinking...), the Responses API ``POST /responses/input_tokens`` (model,
    input, instructions, tools, reasoning...), Gemini
    ``POST /models/{model}:countTokens`` (``{"contents": ...}``, or the whole
    ``generateContentRequest`` when the request has a system instruction,
    tools or settings), Bedrock ``POST /model/{modelId}/count-tokens``
    (``{"input": {"converse": {messages, system, toolConfig...}}}``). Read the
    answer with :func:`read_count_tokens`.

    Parameters
    ----------
    family : str
        ``"anthropic"``, ``"openai-responses"``, ``"gemini"`` or ``"bedrock"``.
    request : Request
        The request whose input is counted.
    api_key, base_url, region, anthropic_version, betas, headers, losses
        As :func:`build_request` takes them.

    Returns
    -------
    HTTPRequest

    Raises
    ------
    ValidationError
        A family with no counting endpoint (OpenAI Chat Completions and its
        dialects, Ollama, Cohere), and what :func:`build_request` raises.
        Cohere's ``/v1/tokenize`` is not one: it splits a single text with a
        model's tokenizer, while a chat request is counted with the template,
        tools and documents the API adds around its messages, which no
        Cohere endpoint applies without answering. Counting the messages'
        texts would give a number below the one Cohere bills, so none is
        given.

    Examples
    --------
    >>> import chatcodec as cc
    >>> from chatcodec import http
    >>> request = cc.Request((cc.system("Be brief."), cc.user("Hi")),
    ...                      model="claude-haiku-4-5", max_tokens=64, temperature=0.5)
    >>> sent = http.build_count_tokens_request("anthropic", request, api_key="sk-ant-1")
    >>> sent.url
    'https://api.anthropic.com/v1/messages/count_tokens'
    >>> sent.body  # no max_tokens, no temperature: they count no token
    b'{"model":"claude-haiku-4-5","system":"Be brief.","messages":[{"role":"user","content":"Hi"}]}'
    >>> http.read_count_tokens("anthropic", 200, {}, b'{"input_tokens":14}')
    14
    """
    name = _counter(family)
    sent = build_request(
        family,
        request,
        stream=False,
        api_key=api_key,
        base_url=base_url,
        region=region,
        anthropic_version=anthropic_version,
        betas=betas,
        headers=headers,
        losses=losses,
    )
    wire: dict[str, Any] = _ANY.decode(sent.body)
    url = sent.url
    body: dict[str, Any]
    if name == "anthropic":
        body = {key: value for key, value in wire.items() if key in _ANTHROPIC_COUNTED}
        url = url.removesuffix("/messages") + "/messages/count_tokens"
    elif name == "openai-responses":
        body = {key: value for key, value in wire.items() if key in _RESPONSES_COUNTED}
        url = url.removesuffix("/responses") + "/responses/input_tokens"
    elif name == "gemini":
        if wire.keys() <= {"contents"}:
            body = wire
        else:
            model = request.model or ""
            resource = model if "/" in model else "models/" + model
            body = {"generateContentRequest": {"model": resource, **wire}}
        url = url.removesuffix(":generateContent") + ":countTokens"
    else:
        counted = {key: value for key, value in wire.items() if key in _BEDROCK_COUNTED}
        body = {"input": {"converse": counted}}
        url = url.removesuffix("/converse") + "/count-tokens"
    return HTTPRequest("POST", url, sent.headers, _ENCODE(body), stream=False)


def read_count_tokens(
    family: str, status: int, headers: HeadersLike, body: bytes | str, *, now: float | None = None
) -> int:
    """The number of input tokens a counting endpoint answered.

    The answer to a :func:`build_count_tokens_request`: Anthropic's and the
    Responses API's ``input_tokens``, Gemini's ``totalTokens``, Bedrock's
    ``inputTokens``.

    Raises
    ------
    ProviderError
        For any status but 2xx, as :func:`read_error` reads it.
    ValidationError
        An answer without its count (Anthropic and the Responses API
        ``input_tokens``, Gemini ``totalTokens``, Bedrock ``inputTokens``).
    DecodeError
        An answer that is not JSON.
    """
    name = _counter(family)
    if not _ok(status):
        raise read_error(family, status, headers, body, now=now)
    try:
        answer = _ANY.decode(body)
    except (msgspec.DecodeError, UnicodeError) as exc:
        raise DecodeError("the answer is not JSON") from exc
    key = _COUNT_KEYS[name]
    if type(answer) is not dict:
        raise ValidationError("must be an object", "$")
    # Gemini writes proto3 JSON, which leaves out a count of zero.
    count = answer.get(key, 0 if name == "gemini" else None)
    if type(count) is not int or count < 0:
        raise ValidationError("must be a whole number of tokens", "$." + key)
    return count


def read_response(
    family: str,
    status: int,
    headers: HeadersLike,
    body: bytes | str,
    *,
    now: float | None = None,
    max_bytes: int | None = None,
) -> Response:
    """Read a non-streamed answer: the :class:`~chatcodec.Response`, or raise its error.

    Parameters
    ----------
    family : str
        The codec that built the request.
    status : int
        The HTTP status.
    headers : mapping or pairs
        The answer's headers (any case).
    body : bytes or str
        The whole body.
    now : float, optional
        For a ``Retry-After`` date (see :func:`read_error`).
    max_bytes : int, optional
        The largest body read (the codec's ``decode_response`` limit).

    Raises
    ------
    ProviderError
        For a status other than 2xx (see :func:`read_error`), or an error body
        sent with a 2xx status; ``status`` is set either way.
    DecodeError, ValidationError
        For a 2xx body that is not the family's response.
    """
    if not _ok(status):
        raise read_error(family, status, headers, body, now=now)
    codec = get(family)
    try:
        if max_bytes is None:
            return codec.decode_response(body)
        return codec.decode_response(body, max_bytes=max_bytes)
    except ProviderError as error:
        raise read_error(family, status, headers, body, now=now) from error


def read_stream(
    family: str,
    status: int,
    headers: HeadersLike,
    body: bytes | str = b"",
    *,
    now: float | None = None,
    **limits: Any,
) -> StreamDecoder:
    """The stream decoder for a streamed answer, or raise its error.

    Call it once the status and headers have come. For a 2xx status it
    returns the family's ``stream(**limits)`` decoder: feed it the body as
    it arrives. For any other status the body is the error, and a small one:
    read it whole and pass it as ``body``.

    Raises
    ------
    ProviderError
        For a status other than 2xx (see :func:`read_error`).
    """
    if not _ok(status):
        raise read_error(family, status, headers, body, now=now)
    return get(family).stream(**limits)
