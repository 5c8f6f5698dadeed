"""OpenAI's Responses API (``POST /v1/responses``), and the servers that speak it.

One codec reads and writes Responses bodies of OpenAI, Azure, xAI and "Open
Responses" servers. ``input`` and ``output`` are flat lists of items; the
canonical form groups them into messages (see :mod:`._decode_items`). What has no
canonical field stays in ``extras["openai-responses"]``, so every body
round trips.
"""

from __future__ import annotations

from ._check import check_request
from ._common import NAME
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._stream import ResponsesStreamDecoder, stream
from ._stream_encode import ResponsesStreamEncoder, encode_stream, stream_encoder

__all__ = [
    "NAME",
    "ResponsesStreamDecoder",
    "ResponsesStreamEncoder",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "stream",
    "stream_encoder",
]
