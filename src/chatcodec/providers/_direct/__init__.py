"""Direct conversions: a usual request written straight from one wire format to another.

:func:`chatcodec.convert` reads a body into the canonical form, writes the
target from it and checks what it wrote with the target's preflight. For the
usual OpenAI Chat request (see :mod:`._source`) the conversions here write the
target's body straight from msgspec's typed decode of the source, one module
per target: Anthropic (:mod:`._anthropic`), Gemini (:mod:`._gemini`), the
Responses API (:mod:`._responses`), Bedrock Converse (:mod:`._bedrock`) and
Ollama (:mod:`._ollama`). The usual Responses API request is read into the
same Structs (see :mod:`._source_responses`), so the same writers serve it
(all but the Responses API's own). Each gives the same bytes and the same losses as
that general path, for a request whose preflight finds nothing. Anything
else (a key or part they do not know, a value the general path keeps or
reports, a problem the preflight would find) makes them decline, and
``convert`` takes the general path. Tests prove both paths equal on every
recorded request, the curated bodies, the bulk files and generated requests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from msgspec import UNSET

from ..._frozen import FrozenMap
from ..._loss import Loss
from . import _anthropic, _bedrock, _gemini, _ollama, _responses, _source, _source_responses
from ._source import Fallback, Read

__all__ = ["BATCH_STREAM", "direct", "direct_request"]

Reader = Callable[[bytes | str, str | None, int | None], Read]
Writer = Callable[[Read], tuple[bytes, list[Loss]]]
_OPENAI = _source.read
_RESPONSES = _source_responses.read
# Each pair's reader of the source and writer of the target.
_PAIRS: Mapping[tuple[str, str], tuple[Reader, Writer]] = FrozenMap(
    {
        ("openai", "anthropic"): (_OPENAI, _anthropic.write),
        ("openai", "gemini"): (_OPENAI, _gemini.write),
        ("openai", "openai-responses"): (_OPENAI, _responses.write),
        ("openai", "bedrock"): (_OPENAI, _bedrock.write),
        ("openai", "ollama"): (_OPENAI, _ollama.write),
        ("openai-responses", "anthropic"): (_RESPONSES, _anthropic.write),
        ("openai-responses", "gemini"): (_RESPONSES, _gemini.write),
        ("openai-responses", "bedrock"): (_RESPONSES, _bedrock.write),
        ("openai-responses", "ollama"): (_RESPONSES, _ollama.write),
    }
)


def direct_request(
    source: str, target: str, body: bytes | str, model: str | None, max_tokens: int | None
) -> tuple[bytes, list[Loss]] | None:
    """The target body and its losses, or None when the general path must convert.

    ``source`` and ``target`` are codec names (``NAME``); ``model`` and
    ``max_tokens`` are :func:`~chatcodec.convert`'s.
    """
    pair = _PAIRS.get((source, target))
    if pair is None:
        return None
    read, write = pair
    try:
        return write(read(body, model, max_tokens))
    except Fallback:
        return None


BATCH_STREAM = "a batch request is not streamed: stream left out"


def direct(
    source: str, target: str, model: str | None, max_tokens: int | None, *, batch: bool = False
) -> Callable[[bytes | str], tuple[bytes, list[Loss]] | None] | None:
    """:func:`direct_request` for one pair and its options, or None when the pair has none.

    For a caller that converts many requests the same way (a bulk run): the
    pair is looked up once, not per body. ``batch``: the body goes into a
    batch file, where no request is streamed: a ``"stream": true`` is left
    out and reported first (:data:`BATCH_STREAM`), as the bulk general path does.
    """
    pair = _PAIRS.get((source, target))
    if pair is None:
        return None
    read, write = pair

    def convert(body: bytes | str) -> tuple[bytes, list[Loss]] | None:
        try:
            r = read(body, model, max_tokens)
            if batch and r.body.stream is True:
                r.body.stream = UNSET
                out, losses = write(r)
                return out, [Loss("$.stream", BATCH_STREAM), *losses]
            return write(r)
        except Fallback:
            return None

    return convert
