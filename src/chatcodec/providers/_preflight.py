"""The preflight of a conversion: the target's rules over what it was sent.

``convert`` used to find the target's problems by decoding the body it had just
written and running the target's ``check_request`` over that. The decode costs
as much as the source's, and it only tells the rules what the encoder already
knew: which messages, parts and tools it left out (the losses it reported) and
whether it had to move anything to fit the target's order.

Strategy: a family that knows how its encoder fits a request gives
``as_sent(request, losses)``: the canonical request its decoder would read back,
as far as its rules can tell (the same messages at the same indices, the same
calls, results and tools), built from the request and the losses of this
encode alone; or ``None`` when the encoder reshaped the request in a way the
family does not follow (moved results, joined turns, renamed ids, lowered
kinds...). Then the output is read back as before (:func:`read_back`). Every
family gives one, in its ``_sent.py``; the bulk path takes the same request
(:func:`sent_request`) for its own rules and the ordering ones.
``tests/providers/test_preflight.py`` proves both ways find the same problems
on every recorded request of every family into every family and OpenAI
dialect, on the curated bodies and on generated requests; ``tests/test_bulk.py``
proves the bulk path's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec

from .._exchange import Request
from .._frozen import FrozenMap
from .._loss import Loss
from .._problems import Problem
from . import Codec
from .anthropic._sent import as_sent as _anthropic
from .bedrock._sent import as_sent as _bedrock
from .cohere._sent import as_sent as _cohere
from .gemini._sent import as_sent as _gemini
from .ollama._sent import as_sent as _ollama
from .openai._sent import as_sent as _openai
from .openai_responses._sent import as_sent as _responses

__all__ = ["preflight", "read_back", "sent_request"]

AsSent = Callable[[Request, Sequence[Loss]], Request | None]

_AS_SENT: Mapping[str, AsSent] = FrozenMap(
    {
        "openai": _openai,
        "openai-responses": _responses,
        "anthropic": _anthropic,
        "gemini": _gemini,
        "ollama": _ollama,
        "bedrock": _bedrock,
        "cohere": _cohere,
    }
)


def read_back(writer: Codec, request: Request, out: bytes) -> list[Problem]:
    """The target's problems in ``out``, decoded again as the target reads it."""
    return writer.check_request(_decoded(writer, request, out))


def _decoded(writer: Codec, request: Request, out: bytes) -> Request:
    sent = writer.decode_request(out)
    if sent.model is None and request.model is not None:
        # Gemini takes the model in the URL: its rules still depend on it.
        sent = msgspec.structs.replace(sent, model=request.model)
    return sent


def sent_request(writer: Codec, request: Request, out: bytes, losses: Sequence[Loss]) -> Request:
    """The request ``out`` is, as the target's rules see it.

    Told from ``request`` and ``losses`` (the ones the target's encoder
    reported writing ``out`` from ``request``, and only those) where the
    target can tell it, else ``out`` decoded again.
    """
    as_sent = _AS_SENT.get(writer.NAME)
    if as_sent is not None:
        sent = as_sent(request, losses)
        if sent is not None:
            return sent
    return _decoded(writer, request, out)


def preflight(writer: Codec, request: Request, out: bytes, losses: Sequence[Loss]) -> list[Problem]:
    """The target's problems in the request it was sent as ``out``.

    ``losses`` are the ones the target's encoder reported writing ``out`` from
    ``request`` (and only those).
    """
    return writer.check_request(sent_request(writer, request, out, losses))
