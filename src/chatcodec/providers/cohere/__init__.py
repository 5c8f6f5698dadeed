"""The Cohere v2 Chat API (``POST https://api.cohere.com/v2/chat``).

How the wire maps to canonical values:

- ``messages`` with the roles ``system``, ``user``, ``assistant`` and
  ``tool``. A system message's ``content`` is a string or text items (joined,
  and split again on the way back); a user's is a string or ``text`` and
  ``image_url`` items (an image by URL or by ``data:`` URL).
- An assistant message's ``tool_plan`` is a :class:`~chatcodec.ReasoningPart`
  (the model's plan before its calls) ahead of its ``content`` items
  (``text`` -> :class:`~chatcodec.TextPart`, ``thinking`` ->
  ``ReasoningPart``); its ``tool_calls`` are :class:`~chatcodec.ToolCall` s
  whose arguments are the bytes of ``function.arguments`` (JSON text).
  Its ``citations`` (spans of a text item, each with its ``document`` and
  ``tool`` sources) are the text parts' :class:`~chatcodec.Citation` s,
  one per source (:mod:`._cite`); a list of another shape stays in
  ``extras["cohere"]``, as sent.
- A ``tool`` message answers ``tool_call_id``; its ``content`` is a string,
  or ``text`` and ``document`` items: a document is a text part holding its
  ``data`` as JSON, written back as the document it was.
- ``tools`` -> :class:`~chatcodec.ToolDefinition` (``strict_tools`` is
  each tool's ``strict``); ``tool_choice`` ``REQUIRED``/``NONE`` -> the modes
  ``required``/``none``; ``response_format`` ``json_object`` with a
  ``json_schema`` -> a JSON schema format; ``thinking`` -> ``reasoning``;
  ``k``/``p`` -> ``top_k``/``top_p``; ``stop_sequences`` -> ``stop``.
  ``documents``, ``citation_options``, ``safety_mode``, ``priority`` and the
  other fields stay in ``extras["cohere"]``.

Responses: ``message`` as above, ``finish_reason`` ``COMPLETE``/``STOP_SEQUENCE``
-> ``stop``, ``MAX_TOKENS`` -> ``length``, ``TOOL_CALL`` -> ``tool_calls``,
``ERROR``/``TIMEOUT`` -> ``error`` (the shared table, :mod:`.._finish`);
``usage.tokens`` are the canonical counts, ``cached_tokens`` the cached ones,
and ``billed_units`` stays in the usage's extras. An error body
(``{"message": ...}``) raises :class:`~chatcodec.ProviderError`.

Streams (``"stream": true``) are SSE events (:func:`stream`,
:func:`stream_encoder`).

Examples
--------
>>> from chatcodec.providers import cohere
>>> body = b'{"model":"command-a-03-2025","messages":[{"role":"user","content":"Hi"}]}'
>>> request = cohere.decode_request(body)
>>> request.messages[0].text
'Hi'
>>> cohere.encode_request(request) == body
True
"""

from __future__ import annotations

from ..._depth import refuses_depth
from ..._exchange import Request, Response
from ..._framing import Framing, limits
from ..._loss import Loss
from ..._problems import Problem
from .._lower import DENIED_RESULT
from .._wire import MAX_BODY, check_size, json_body
from . import _check, _decode, _encode
from ._cite import read_request, read_response
from ._common import NAME
from ._fast import fast_request, fast_response
from ._stream import CohereStreamDecoder
from ._stream_encode import CohereStreamEncoder, encode_stream, stream_encoder

__all__ = [
    "NAME",
    "CohereStreamDecoder",
    "CohereStreamEncoder",
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
    r"""Read a Cohere v2 Chat request body.

    Parameters
    ----------
    body : bytes or str
        The JSON body of ``POST /v2/chat``.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Request
        The canonical request; what has no canonical field is in
        ``extras["cohere"]`` at the level it appeared.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If it is not a Cohere chat request (the error names the path).

    Examples
    --------
    >>> from chatcodec.providers import cohere
    >>> request = cohere.decode_request(
    ...     b'{"model":"command-a-03-2025","messages":['
    ...     b'{"role":"assistant","tool_plan":"I will look it up.","tool_calls":[{"id":"c1",'
    ...     b'"type":"function","function":{"name":"f","arguments":"{\\"x\\":1}"}}]},'
    ...     b'{"role":"tool","tool_call_id":"c1","content":[{"type":"document",'
    ...     b'"document":{"data":{"x":2}}}]}]}'
    ... )
    >>> answer, result = request.messages
    >>> answer.reasoning, bytes(answer.tool_calls[0].arguments), result.text
    ('I will look it up.', b'{"x":1}', '{"x":2}')
    """
    check_size(body, max_bytes)
    fast = fast_request(body)
    # Both paths keep the citations as sent; one step reads them, for both.
    return read_request(fast if fast is not None else _decode.decode_request(body))


@refuses_depth
def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a request as a Cohere v2 Chat body.

    Parameters
    ----------
    request : Request
        From any provider, or built by hand.
    losses : list of Loss, optional
        Receives what the Cohere wire cannot carry: audio and file parts,
        images in tool results, a tool error flag, a forced tool by name,
        reasoning signatures, other providers' blocks and fields...
    vision : bool, default True
        Whether the model takes images; without vision an image is sent as
        the text read from it, or left out (reported).
    denied_result : str, optional
        The text of the error result sent for a denied tool call that
        nothing answers.

    Returns
    -------
    bytes
        Compact JSON.

    Examples
    --------
    >>> from chatcodec import Request, ToolChoice, tool_call, assistant, user
    >>> from chatcodec.providers import cohere
    >>> losses = []
    >>> request = Request(
    ...     (user("Weather?"), assistant(tool_calls=[tool_call("c1", "weather", {})])),
    ...     model="command-a-03-2025", tool_choice=ToolChoice("tool", "weather"),
    ... )
    >>> cohere.encode_request(request, losses=losses)[-60:]
    b'e":"weather","arguments":"{}"}}]}],"tool_choice":"REQUIRED"}'
    >>> [str(loss) for loss in losses]
    ['cohere cannot force one named tool: sent as REQUIRED - at `$.tool_choice.name`']
    """
    return _encode.encode_request(
        request, losses=losses, vision=vision, denied_result=denied_result
    )


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read a Cohere v2 Chat response body.

    Parameters
    ----------
    body : bytes or str
        The JSON body Cohere answered with.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Raises
    ------
    ProviderError
        For an error body, ``{"id": ..., "message": ...}``; Cohere's errors
        carry no type or code (the HTTP status says the kind, see
        :func:`chatcodec.http.read_error`).
    DecodeError, ValidationError
        If the body is not JSON, or not a Cohere chat response.

    Examples
    --------
    >>> from chatcodec.providers import cohere
    >>> response = cohere.decode_response(
    ...     b'{"id":"r1","message":{"role":"assistant","content":[{"type":"text",'
    ...     b'"text":"Hi!"}]},"finish_reason":"COMPLETE","usage":{"billed_units":'
    ...     b'{"input_tokens":5,"output_tokens":2},"tokens":{"input_tokens":71,'
    ...     b'"output_tokens":2}}}'
    ... )
    >>> response.message.text, response.finish_reason.value, response.usage.total
    ('Hi!', 'stop', 73)
    """
    check_size(body, max_bytes)
    fast = fast_response(body)
    return read_response(fast if fast is not None else _decode.response_from(json_body(body)))


@refuses_depth
def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a response as a Cohere v2 Chat body.

    Parameters
    ----------
    response : Response
        From any provider, or built by hand.
    losses : list of Loss, optional
        Receives what the Cohere wire cannot carry (a second choice, the
        model's name, reasoning or cache-write token counts...).

    Returns
    -------
    bytes
        Compact JSON.
    """
    return _encode.encode_response(response, losses=losses)


def check_request(request: Request) -> list[Problem]:
    """What Cohere would refuse in ``request`` (or drop), as problems.

    Errors predict a 400 or a 422: no model, or another family's; no
    messages; a required tool call without tools; a tool without a
    parameters schema; ``temperature``, ``top_p``, ``top_k`` or the penalties
    out of their ranges; more than five stop sequences. Warnings: what the
    encoder would drop, and results that answer no earlier call.

    Examples
    --------
    >>> from chatcodec import Request, user
    >>> from chatcodec.providers import cohere
    >>> [p.rule for p in cohere.check_request(Request((user("Hi"),), model="gpt-4o"))]
    ["must name a model cohere serves: this one is openai's; pass the target's model"]
    """
    return _check.check_request(request)


def stream(
    framing: Framing | None = None,
    *,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> CohereStreamDecoder:
    r"""A decoder for a Cohere v2 Chat stream (SSE events).

    Feed it bytes as they arrive, split anywhere; :meth:`~CohereStreamDecoder.finish`
    returns what :func:`decode_response` gives for the same answer sent
    without streaming. The stream is complete at ``message-end``;
    ``finish()`` of a stream cut off before raises ``StreamError``
    (``finish(allow_incomplete=True)`` returns the partial, a call cut off
    in it an invalid call whose arguments are truncated). A ``message-end``
    with an ``error`` raises :class:`~chatcodec.StreamError` holding the
    response so far (``.provider`` is ``"cohere"``).

    Parameters
    ----------
    framing : {"sse"}, optional
        The framing, if known (Cohere streams are SSE).
    max_line, max_event, max_arguments, max_tool_calls : int, optional
        Limits: the longest line and event of the stream in bytes (default
        32 and 64 MiB), the most characters of one call's arguments (16 MiB)
        and the most tool calls (10,000).

    Returns
    -------
    CohereStreamDecoder
        ``feed(data) -> list of events``, ``finish() -> Response``.

    Examples
    --------
    >>> from chatcodec.providers import cohere
    >>> decoder = cohere.stream()
    >>> events = decoder.feed(
    ...     b'event: message-start\ndata: {"id":"r1","type":"message-start","delta":'
    ...     b'{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],'
    ...     b'"citations":[]}}}\n\n'
    ...     b'event: content-start\ndata: {"type":"content-start","index":0,"delta":'
    ...     b'{"message":{"content":{"type":"text","text":""}}}}\n\n'
    ...     b'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":'
    ...     b'{"message":{"content":{"text":"Hi!"}}}}\n\n'
    ...     b'event: content-end\ndata: {"type":"content-end","index":0}\n\n'
    ...     b'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":'
    ...     b'"COMPLETE","usage":{"tokens":{"input_tokens":9,"output_tokens":2}}}}\n\n'
    ... )
    >>> [type(event).__name__ for event in events]
    ['TextDelta', 'UsageReported', 'Finished']
    >>> response = decoder.finish()
    >>> response.message.text, response.usage.total
    ('Hi!', 11)
    """
    return CohereStreamDecoder(framing, limits(max_line, max_event, max_arguments, max_tool_calls))
