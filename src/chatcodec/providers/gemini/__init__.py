"""The Gemini codec: ``generateContent`` bodies of the Gemini API and Vertex AI.

Requests: ``contents`` (``user``/``model`` turns of parts), ``systemInstruction``,
``tools`` (``functionDeclarations`` and Google's own tools), ``toolConfig`` and
``generationConfig`` (the normalized settings: sampling, seed, penalties,
``candidateCount``, ``thinkingConfig``, the response format); responses:
``candidates`` and ``usageMetadata`` (the completion counts the thoughts,
the prompt the tool-use prompts, so that they add up to the total). The
model is named in the URL, so ``Request.model`` is ``None`` unless the body
has one. Keys may be spelled in camelCase or snake_case; both are read, and
written back as they came.

What a function result carries: ``ToolMessage.content`` is the JSON text of
the ``response`` object. On the way out, text that is a JSON object is sent
as that object, other text as ``{"result": text}`` (``{"error": text}`` for
``is_error``), since Gemini takes only an object there.
"""

from __future__ import annotations

from ._check import check_request
from ._common import NAME
from ._decode import decode_request, decode_response
from ._encode import encode_request, encode_response
from ._stream import GeminiStreamDecoder, stream
from ._stream_encode import GeminiStreamEncoder, encode_stream, stream_encoder

__all__ = [
    "NAME",
    "GeminiStreamDecoder",
    "GeminiStreamEncoder",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "encode_stream",
    "stream",
    "stream_encoder",
]
