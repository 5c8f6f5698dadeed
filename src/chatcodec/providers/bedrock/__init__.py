"""The Bedrock codec: Amazon Bedrock ``Converse`` and ``ConverseStream`` bodies.

Requests: ``messages`` (``user``/``assistant`` turns of single-key content
blocks), ``system`` blocks, ``toolConfig`` (``toolSpec`` tools and
``toolChoice``), ``inferenceConfig`` and ``outputConfig.textFormat`` (the
answer's JSON schema, as ``response_format``); ``additionalModelRequestFields``,
``guardrailConfig``, ``promptVariables`` and the other fields are kept
verbatim in ``extras["bedrock"]``. Responses: ``output.message``,
``stopReason``, ``usage`` with the cache reads and writes, and ``metrics``,
``trace`` and ``performanceConfig`` in extras. The model is named in the
URL, so ``Request.model`` is ``None`` unless the body has a ``modelId``.

``ConverseStream`` answers in AWS's binary event-stream framing
(:mod:`chatcodec._eventstream`); :func:`stream` folds its events into the
response ``decode_response`` gives, and :func:`stream_encoder` writes one.
"""

from __future__ import annotations

from ._blocks import NAME
from ._check import check_request
from ._decode import decode_request, decode_response
from ._encode import encode_request, encode_response
from ._stream import BedrockStreamDecoder, stream
from ._stream_encode import BedrockStreamEncoder, encode_stream, stream_encoder

__all__ = [
    "NAME",
    "BedrockStreamDecoder",
    "BedrockStreamEncoder",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "stream",
    "stream_encoder",
]
