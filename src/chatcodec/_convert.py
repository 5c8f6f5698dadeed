"""Conversion between provider wire formats, with a report of what was lost."""

from __future__ import annotations

from typing import Literal

import msgspec

from ._errors import LossError
from ._loss import Loss, LossReport
from .providers import Codec, get

__all__ = ["convert"]

_codecs: dict[str, Codec] = {}  # get's answers, by the name asked: a lookup per call


def _codec(name: str) -> Codec:
    codec = _codecs.get(name)
    if codec is None:
        codec = get(name)  # raises for a name that is no codec's
        if len(_codecs) < 64:
            _codecs[name] = codec
    return codec


def convert(
    body: bytes | str,
    *,
    source: str,
    target: str,
    kind: Literal["request", "response"] = "request",
    strict: bool = False,
    model: str | None = None,
    max_tokens: int | None = None,
) -> tuple[bytes, LossReport]:
    """Convert a request or response body from one provider's format to another's.

    Parameters
    ----------
    body : bytes or str
        The source body.
    source, target : str
        Provider names, as for :func:`chatcodec.providers.get`.
    kind : {"request", "response"}
        What the body is.
    strict : bool, default False
        Raise :class:`LossError` instead of returning a non-empty report.
    model, max_tokens : optional
        Values for a request that does not carry them, for a target that
        needs them: Gemini puts the model in the URL, not the body, and
        Anthropic requires ``max_tokens``. A value the request has wins.

    Returns
    -------
    bytes
        The target body.
    LossReport
        Every field or block the target could not carry, by path (in the
        canonical form) and reason. Empty when nothing was lost.

    Raises
    ------
    LossError
        With ``strict``, when anything would be lost.
    DecodeError, ValidationError, ProviderError
        When the source body cannot be read.
    """
    reader, writer = _codec(source), _codec(target)
    losses: list[Loss] = []
    if kind == "request":
        request = reader.decode_request(body)
        fill: dict[str, object] = {}
        if model is not None and request.model is None:
            fill["model"] = model
        if max_tokens is not None and request.max_tokens is None:
            fill["max_tokens"] = max_tokens
        if fill:
            request = msgspec.structs.replace(request, **fill)
        out = writer.encode_request(request, losses=losses)
    elif kind == "response":
        out = writer.encode_response(reader.decode_response(body), losses=losses)
    else:
        raise ValueError('kind must be "request" or "response"')
    report = LossReport(tuple(losses))
    if strict and report:
        raise LossError(report.losses)
    return out, report
