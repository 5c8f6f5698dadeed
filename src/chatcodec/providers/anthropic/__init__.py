"""The Anthropic Messages API (``POST /v1/messages``).

How the wire maps to canonical values:

- The top-level ``system`` (a string, or text blocks) becomes the leading
  :class:`~chatcodec.SystemMessage` s, one per block. A ``system`` turn
  inside ``messages`` stays in place. On encode, leading system and developer
  messages go to ``system``; later ones stay in place as ``system`` turns,
  which Anthropic takes in ``messages``, so nothing moves and nothing is lost.
- A user turn becomes one :class:`~chatcodec.ToolMessage` per ``tool_result``
  block (``is_error`` kept), in order, then a :class:`~chatcodec.UserMessage`
  for the other blocks. On encode, consecutive messages of the same wire role
  share one turn, tool results first, as Anthropic requires.
- ``cache_control`` (``{"type": "ephemeral"}``, with a ``ttl``) on a block, a
  system block or a tool -> the ``cache`` (:class:`~chatcodec.CachePoint`) of
  what it becomes; another form stays in extras. A top-level ``cache_control``
  (automatic caching) stays in the request's extras; :func:`chatcodec.convert`
  to another family places it on the prompt's last block that takes a cache
  point.
- ``text`` -> :class:`~chatcodec.TextPart` (citations in its extras);
  ``image`` with a base64 or URL source -> :class:`~chatcodec.ImagePart`;
  ``document`` with a base64 PDF, URL, file or
  plain-text source -> :class:`~chatcodec.FilePart` (plain text is held as
  base64 ``text/plain`` data and written back as a text source); ``thinking``
  -> :class:`~chatcodec.ReasoningPart` with its ``signature`` and
  ``redacted_thinking`` -> ``ReasoningPart(redacted=...)``, both echoed back;
  ``tool_use`` -> :class:`~chatcodec.ToolCall` whose arguments are the
  ``input`` object's JSON. Server-tool blocks and every other block type stay
  :class:`~chatcodec.OpaquePart` in position.
- Tools with an ``input_schema`` -> :class:`~chatcodec.ToolDefinition`;
  server tools (``web_search_...``, ``code_execution_...``) ->
  :class:`~chatcodec.ProviderTool`. ``tool_choice`` ``auto``/``any``/``tool``/
  ``none`` -> modes ``auto``/``required``/``tool``/``none``, and
  ``disable_parallel_tool_use`` -> ``parallel_tool_calls`` (negated).
  ``stop_sequences`` -> ``stop``; ``output_config.format`` with a JSON schema
  -> ``response_format``. ``thinking`` -> ``reasoning``: ``enabled`` with its
  budget, ``disabled``, ``adaptive`` with the effort of ``output_config.effort``;
  written in the form the request's model takes (see
  :mod:`~chatcodec.providers.anthropic._settings`).
- Tool ids must match ``^[a-zA-Z0-9_-]+$``: another source's id that does not
  is rewritten to a derived ``toolu_`` id, the same in the call and in its
  result. The conversation means the same, so this is not reported as a loss.
- ``max_tokens`` is required by Anthropic: a request without it is sent
  without it (``check_request`` reports an error; ``chatcodec.convert`` takes a
  ``max_tokens`` to fill in).
- Reasoning from another provider cannot be sent (Anthropic checks the
  signature), nor can audio: both are dropped and reported. Empty text blocks
  are refused by Anthropic in requests: they are dropped and reported.

Responses: ``stop_reason`` ``end_turn``/``stop_sequence`` -> ``stop``,
``max_tokens``/``model_context_window_exceeded`` -> ``length``, ``tool_use``
-> ``tool_calls``, ``refusal`` -> ``content_filter``, ``pause_turn`` and
anything else -> ``other``. Usage: ``prompt_tokens`` counts every input token,
``input_tokens`` plus ``cache_read_input_tokens`` plus
``cache_creation_input_tokens`` (Anthropic's ``input_tokens`` leaves the
cached ones out), ``cached_tokens`` is ``cache_read_input_tokens``,
``cache_write_tokens`` is ``cache_creation_input_tokens`` and
``reasoning_tokens`` is ``output_tokens_details.thinking_tokens``. An empty
``content`` gives a choice without a message.

Streams (``"stream": true``): :func:`stream` folds the events into the
message Anthropic would have sent unstreamed and decodes it the same way.

Examples
--------
>>> from chatcodec.providers import anthropic
>>> body = b'{"model":"claude-sonnet-4-5","max_tokens":64,"system":"Be brief.",'
>>> body += b'"messages":[{"role":"user","content":"Hi"}]}'
>>> request = anthropic.decode_request(body)
>>> [message.role.value for message in request.messages]
['system', 'user']
>>> anthropic.encode_request(request) == body
True
"""

from __future__ import annotations

from ..._depth import refuses_depth
from ..._exchange import Request, Response
from ..._loss import Loss
from ..._problems import Problem
from .._lower import DENIED_RESULT
from .._wire import MAX_BODY, check_size
from . import _check, _decode, _encode
from ._fast import fast_response
from ._fastreq import fast_request
from ._stream import AnthropicStreamDecoder, stream
from ._stream_encode import AnthropicStreamEncoder, encode_stream, stream_encoder

__all__ = [
    "NAME",
    "AnthropicStreamDecoder",
    "AnthropicStreamEncoder",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "stream",
    "stream_encoder",
]

NAME = "anthropic"


def decode_request(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Request:
    """Read a Messages API request body.

    Parameters
    ----------
    body : bytes or str
        The JSON body of ``POST /v1/messages``.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Request
        The canonical request; what has no canonical field is in
        ``extras["anthropic"]`` at the level it appeared.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If the body is not an object, or a field has the wrong type.
    """
    check_size(body, max_bytes)
    fast = fast_request(body)
    return fast if fast is not None else _decode.decode_request(body)


@refuses_depth
def encode_request(
    request: Request,
    *,
    losses: list[Loss] | None = None,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a Messages API request body.

    Parameters
    ----------
    request : Request
        The request, decoded from any provider or built by hand.
    losses : list of Loss, optional
        Receives what the Anthropic wire cannot carry.
    vision : bool, default True
        Whether the model takes images; without vision an image is sent as
        the text read from it, or left out (reported).
    denied_result : str, optional
        The text of the error result sent for a denied tool call that
        nothing answers. Other transcript kinds go as text (a resolved file
        reference) or as a text document titled with its URI (an MCP
        resource), or are left out and reported (a file reference not
        resolved, a part of an unknown kind).

    Returns
    -------
    bytes
        Compact JSON.

    Examples
    --------
    >>> from chatcodec import Request, system, user
    >>> from chatcodec.providers import anthropic
    >>> request = Request((system("Be brief."), user("Hi")), model="claude-sonnet-4-5")
    >>> anthropic.encode_request(request)[:56]
    b'{"model":"claude-sonnet-4-5","system":"Be brief.","messa'
    """
    return _encode.encode_request(request, losses, vision=vision, denied_result=denied_result)


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read a Messages API response body.

    Parameters
    ----------
    body : bytes or str
        The JSON body Anthropic answered with.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Response
        One choice; its message is None when ``content`` is empty.

    Raises
    ------
    ProviderError
        If the body is an error (``{"type": "error", "error": {...}}``); its
        ``type`` is Anthropic's error type.
    DecodeError
        If the body is not JSON.
    ValidationError
        If the body is not an object, or a field has the wrong type.
    """
    check_size(body, max_bytes)
    # The usual shape decodes straight into typed Structs; anything else
    # (server-tool blocks, unknown keys, errors...) takes the general path.
    response = fast_response(body)
    return response if response is not None else _decode.decode_response(body)


@refuses_depth
def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a Messages API response body.

    Parameters
    ----------
    response : Response
        The response, decoded from any provider or built by hand.
    losses : list of Loss, optional
        Receives what the Anthropic wire cannot carry (choices after the
        first, reasoning from another provider...).

    Returns
    -------
    bytes
        Compact JSON.
    """
    return _encode.encode_response(response, losses)


def check_request(request: Request) -> list[Problem]:
    """Find what Anthropic would refuse with a 400, before sending.

    Parameters
    ----------
    request : Request
        The request to check.

    Returns
    -------
    list of Problem
        Each names the canonical JSON path and the rule; ``"error"`` for a
        certain refusal, ``"warning"`` for a likely one.

    Examples
    --------
    >>> from chatcodec import Request, user
    >>> from chatcodec.providers import anthropic
    >>> [str(p) for p in anthropic.check_request(Request((user("Hi"),), model="claude"))]
    ['error: must be set: Anthropic requires it - at `$.max_tokens`']
    """
    return _check.check_request(request)
