"""Direct conversions: a usual request written straight from one wire format to another.

:func:`chatcodec.convert` reads a body into the canonical form, writes the
target from it and checks what it wrote with the target's preflight. For the
usual OpenAI Chat request (see :mod:`._source`) the conversions here write the
target's body straight from msgspec's typed decode of the source, one module
per target: Anthropic (:mod:`._anthropic`), Gemini (:mod:`._gemini`), the
Responses API (:mod:`._responses`), Bedrock Converse (:mod:`._bedrock`),
Ollama (:mod:`._ollama`) and Cohere (:mod:`._cohere`). The usual Anthropic,
Responses API, Ollama, Cohere, Gemini and Bedrock requests are read into
the same typed form (see :mod:`._source_anthropic`, :mod:`._source_responses`,
:mod:`._from_ollama`, :mod:`._from_cohere`, :mod:`._from_gemini`,
:mod:`._from_bedrock`) and go to each of those but their own family, and to
OpenAI Chat (:mod:`._openai`, a writer that takes any source's typed form).
Each gives the same bytes and the same losses as that general path, for a
request whose preflight finds nothing; a reasoning setting is left out first
for a model that does not think, as the general path leaves it out (see
:mod:`.._model_fit`). Anything else (a
key or part they do not know, a value the general path keeps or reports, a
problem the preflight would find) makes them decline, and ``convert`` takes
the general path. Tests prove both paths equal on every
recorded request, the curated bodies, the bulk files and generated requests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

from msgspec import UNSET

from ..._frozen import FrozenMap
from ..._loss import Loss
from .._model_fit import REASONING_LEFT_OUT, reasoning_left_out
from .._profiles import images_refused
from . import (
    _anthropic,
    _bedrock,
    _cohere,
    _from_bedrock,
    _from_cohere,
    _from_gemini,
    _from_ollama,
    _gemini,
    _ollama,
    _openai,
    _responses,
    _source_anthropic,
    _source_responses,
)
from ._left import reporting
from ._source import Fallback, Read, Writer, read, readable

__all__ = ["BATCH_STREAM", "Straight", "direct", "direct_request", "paired"]

Reader = Callable[[bytes | str, str | None, int | None], Read]
_READERS: Mapping[str, Reader] = FrozenMap(
    {
        "openai": read,
        "anthropic": _source_anthropic.read,
        "ollama": _from_ollama.read,
        "cohere": _from_cohere.read,
        "gemini": _from_gemini.read,
        "openai-responses": _source_responses.read,
        "bedrock": _from_bedrock.read,
    }
)
# Each target's writer, by its family.
_BY_TARGET: Mapping[str, Writer] = FrozenMap(
    {
        "openai": _openai.write,
        "anthropic": _anthropic.write,
        "gemini": _gemini.write,
        "openai-responses": _responses.write,
        "bedrock": _bedrock.write,
        "ollama": _ollama.write,
        "cohere": _cohere.write,
    }
)


def _pair_writer(source: str, target: str) -> Writer:
    """The target's writer, wrapped where the source's messages hold what it reports."""
    write = _BY_TARGET[target]
    if source == "gemini":
        return _from_gemini.holding(write, target)
    if source in ("anthropic", "openai-responses"):
        return reporting(write, source, target)
    return write


# Every source to every other family.
_WRITERS: Mapping[tuple[str, str], Writer] = FrozenMap(
    {(s, t): _pair_writer(s, t) for s in _READERS for t in _BY_TARGET if t != s}
)


Straight = Callable[[bytes | str, str | None, int | None], tuple[bytes, list[Loss]] | None]
"""The direct path of one pair: :func:`direct_request` without the pair."""


def direct_request(
    source: str, target: str, body: bytes | str, model: str | None, max_tokens: int | None
) -> tuple[bytes, list[Loss]] | None:
    """The target body and its losses, or None when the general path must convert.

    ``source`` and ``target`` are codec names (``NAME``); ``model`` and
    ``max_tokens`` are :func:`~chatcodec.convert`'s.
    """
    write = _WRITERS.get((source, target))
    if write is None:
        return None
    return _attempt(write, _READERS[source], target, body, model, max_tokens)


def paired(source: str, target: str) -> Straight | None:
    """:func:`direct_request` for one pair, or None when the pair has none.

    For :func:`~chatcodec.convert`, which keeps it for each pair it is asked:
    the pair is looked up once, not per body.
    """
    write = _WRITERS.get((source, target))
    if write is None:
        return None
    return partial(_attempt, write, _READERS[source], target)


def _attempt(
    write: Writer,
    read: Reader,
    target: str,
    body: bytes | str,
    model: str | None,
    max_tokens: int | None,
) -> tuple[bytes, list[Loss]] | None:
    """What ``write`` makes of what ``read`` reads of ``body``, or None when either declines."""
    if not readable(body):
        return None
    try:
        return _written(write, read(body, model, max_tokens), target)
    except Fallback:
        return None


def _written(write: Writer, r: Read, target: str) -> tuple[bytes, list[Loss]]:
    """What ``write`` makes of ``r``, fitted to its model's profile as the general path fits it.

    A model that does not think has the reasoning setting its family would
    send left out, reported before anything the writer reports (see
    :mod:`.._model_fit`). A model that takes no images has them left out and
    reported there too: declined here. The request has no JSON schema
    format, or it would not have been read.

    Raises
    ------
    Fallback
        When the general path would leave an image out.
    """
    if r.images and images_refused(target, r.model):
        raise Fallback
    if r.reasoning is None or not reasoning_left_out(target, r.model, r.reasoning):
        return write(r)  # no setting: nothing to leave out (the usual request)
    r.reasoning = None
    out, losses = write(r)
    return out, [Loss("$.reasoning", REASONING_LEFT_OUT), *losses]


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
    write = _WRITERS.get((source, target))
    if write is None:
        return None
    read_source = _READERS[source]
    if not batch:
        return partial(_attempt, write, read_source, target, model=model, max_tokens=max_tokens)

    def convert(body: bytes | str) -> tuple[bytes, list[Loss]] | None:
        if not readable(body):
            return None
        try:
            r = read_source(body, model, max_tokens)
            if r.body.stream is True:
                r.body.stream = UNSET
                out, losses = _written(write, r, target)
                return out, [Loss("$.stream", BATCH_STREAM), *losses]
            return _written(write, r, target)
        except Fallback:
            return None

    return convert
