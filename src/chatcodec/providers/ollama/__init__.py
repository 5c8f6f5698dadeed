"""The Ollama native chat codec: ``POST /api/chat`` bodies.

Ollama's own wire (not its OpenAI-compatible ``/v1``, which the ``openai``
codec reads): one text ``content`` per message with ``images`` beside it,
``thinking`` for reasoning, tool calls whose ``arguments`` are JSON objects
and that carry no id, tool results that name their call by ``tool_name``,
sampling parameters inside ``options``, and responses that count tokens as
``prompt_eval_count``/``eval_count`` beside nanosecond durations.

Examples
--------
>>> from chatcodec.providers import ollama
>>> body = (
...     b'{"model":"llama3.2","messages":[{"role":"user","content":"Hi"}],'
...     b'"options":{"num_predict":64}}'
... )
>>> request = ollama.decode_request(body)
>>> request.messages[0].text, request.max_tokens
('Hi', 64)
>>> ollama.encode_request(request) == body
True
"""

from __future__ import annotations

from ..._depth import refuses_depth
from ..._exchange import Request, Response
from ..._framing import Framing, limits
from ..._loss import Loss
from ..._problems import Problem
from .._lower import DENIED_RESULT
from .._wire import MAX_BODY, check_size
from . import _check, _decode, _encode
from ._common import NAME
from ._stream import OllamaStreamDecoder
from ._stream_encode import OllamaStreamEncoder, encode_stream, stream_encoder

__all__ = [
    "NAME",
    "OllamaStreamEncoder",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "stream",
    "stream_encoder",
]


def decode_request(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Request:
    """Read an Ollama ``/api/chat`` request body.

    Tool calls get deterministic ids (:func:`~chatcodec.providers._wire.derive_id`)
    and each tool result the id of the earlier call it names by ``tool_name``;
    ``options.temperature``, ``top_p``, ``num_predict`` and ``stop`` are the
    canonical sampling fields; ``format`` is the response format.

    Parameters
    ----------
    body : bytes or str
        The JSON body.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Request
        The canonical request; what has no canonical field is in ``extras["ollama"]``.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If it is not an Ollama chat request (the error names the path).

    Examples
    --------
    >>> from chatcodec.providers import ollama
    >>> request = ollama.decode_request(
    ...     b'{"model":"qwen3","messages":['
    ...     b'{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"x":1}}}]},'
    ...     b'{"role":"tool","tool_name":"f","content":"2"}]}'
    ... )
    >>> call = request.messages[0].tool_calls[0]
    >>> bytes(call.arguments), request.messages[1].tool_call_id == call.id
    (b'{"x":1}', True)
    """
    check_size(body, max_bytes)
    return _decode.decode_request(body)


@refuses_depth
def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a request as an Ollama ``/api/chat`` body.

    Ollama streams unless told not to: a request that does not say
    (``stream=None``) is sent with ``"stream": false``, except one that came
    from Ollama without ``stream``.

    Parameters
    ----------
    request : Request
        From any provider, or built by hand.
    losses : list of Loss, optional
        Receives what the Ollama wire cannot carry: images by URL, audio and
        file parts, other providers' blocks and fields, reasoning signatures,
        tool error flags, a forced tool choice...
    vision : bool, default True
        Whether the model takes images; without vision an image is sent as
        the text read from it, or left out (reported).
    denied_result : str, optional
        The text of the error result sent for a denied tool call that
        nothing answers. Other transcript kinds go as text (a resolved file
        reference, an MCP resource) or are left out and reported (a file
        reference not resolved, a part of an unknown kind).

    Returns
    -------
    bytes
        The JSON body.

    Examples
    --------
    >>> from chatcodec import ImagePart, Request, user
    >>> from chatcodec.providers import ollama
    >>> losses = []
    >>> image = ImagePart(url="https://example.com/cat.png")
    >>> ollama.encode_request(Request((user(["What is this?", image]),)), losses=losses)
    b'{"messages":[{"role":"user","content":"What is this?"}],"stream":false}'
    >>> [str(loss) for loss in losses]
    ['ollama cannot carry an image by URL - at `$.messages[0].content[1]`']
    """
    return _encode.encode_request(
        request, losses=losses, vision=vision, denied_result=denied_result
    )


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read an Ollama ``/api/chat`` response body (or one streamed object).

    Usage is ``prompt_eval_count`` and ``eval_count``; the durations stay in
    ``extras``. ``done_reason`` ``"stop"`` with tool calls is
    ``FinishReason.TOOL_CALLS`` (the raw reason is kept).

    Parameters
    ----------
    body : bytes or str
        The JSON body.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Raises
    ------
    ProviderError
        For an error body, ``{"error": "..."}``; Ollama's errors carry only a
        message, so ``type`` and ``code`` are ``None``.
    DecodeError, ValidationError
        If the body is not JSON, or not an Ollama chat response.

    Examples
    --------
    >>> from chatcodec.providers import ollama
    >>> response = ollama.decode_response(
    ...     b'{"model":"llama3.2","message":{"role":"assistant","content":"Hi!"},'
    ...     b'"done_reason":"stop","done":true,"prompt_eval_count":26,"eval_count":4}'
    ... )
    >>> response.message.text, response.finish_reason.value, response.usage.total
    ('Hi!', 'stop', 30)
    """
    check_size(body, max_bytes)
    return _decode.decode_response(body)


@refuses_depth
def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a response as an Ollama ``/api/chat`` body.

    Parameters
    ----------
    response : Response
        From any provider, or built by hand.
    losses : list of Loss, optional
        Receives what the Ollama wire cannot carry (a second choice, an id,
        cached or reasoning token counts...).

    Returns
    -------
    bytes
        The JSON body.
    """
    return _encode.encode_response(response, losses=losses)


def check_request(request: Request) -> list[Problem]:
    """What Ollama would refuse in ``request`` (or likely mishandle), as problems.

    Errors predict a 400: no model, a ``format`` that is not ``""``,
    ``"json"`` or a schema, a ``keep_alive`` that is not a duration, a
    ``think`` that is not a boolean or level, image data that is not base64,
    tool-call arguments that are not an object, a tool schema Ollama cannot
    read. Warnings: what would be dropped (images by URL, audio, files) and
    tool results that answer no earlier call (no ``tool_name`` to send).

    Examples
    --------
    >>> from chatcodec import Request, user
    >>> from chatcodec.providers import ollama
    >>> [str(p) for p in ollama.check_request(Request((user("Hi"),)))]
    ['error: model is required - at `$.model`']
    """
    return _check.check_request(request)


def stream(
    framing: Framing | None = None,
    *,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> OllamaStreamDecoder:
    r"""A decoder for an Ollama ``/api/chat`` stream (NDJSON, one chunk per line).

    Feed it bytes as they arrive, split anywhere; :meth:`~OllamaStreamDecoder.finish`
    returns what :func:`decode_response` gives for the same answer sent
    without streaming. Tool calls arrive whole; their derived ids depend on
    the answer's last ``created_at``, so each is announced as it arrives and
    completed (with its id) when the answer is done. A line ``{"error": ...}``
    raises :class:`~chatcodec.StreamError` holding the response so far
    (``.provider`` is ``"ollama"``). The stream is complete at its line with
    ``"done": true``; ``finish()`` of a stream cut off before raises
    ``StreamError`` (``finish(allow_incomplete=True)`` returns the partial).

    Parameters
    ----------
    framing : {"sse", "ndjson", "json-array"}, optional
        Detected from the first bytes when omitted (Ollama sends NDJSON).
    max_line, max_event, max_arguments, max_tool_calls : int, optional
        Limits: the longest line and event of the stream in bytes (default
        32 and 64 MiB), the most characters of one call's arguments (16 MiB)
        and the most tool calls (10,000).

    Returns
    -------
    OllamaStreamDecoder
        ``feed(data) -> list of events``, ``finish() -> Response``.

    Examples
    --------
    >>> from chatcodec.providers import ollama
    >>> decoder = ollama.stream()
    >>> decoder.feed(b'{"model":"qwen3","message":{"role":"assistant","content":"Hel')
    []
    >>> decoder.feed(b'lo"},"done":false}\n{"model":"qwen3","message":{"role":"assistant",')
    [TextDelta(text=<5 chars>)]
    >>> events = decoder.feed(
    ...     b'"content":""},"done":true,"done_reason":"stop",'
    ...     b'"prompt_eval_count":9,"eval_count":2}\n'
    ... )
    >>> [type(event).__name__ for event in events]
    ['UsageReported', 'Finished']
    >>> response = decoder.finish()
    >>> response.message.text, response.usage.total
    ('Hello', 11)
    """
    return OllamaStreamDecoder(framing, limits(max_line, max_event, max_arguments, max_tool_calls))
