"""The preflight of a conversion finds what reading the output back finds.

``convert`` checks the request as the target is sent it, from the canonical
request and the encoder's losses (``providers/_preflight.py``); the way before
decoded the output again and checked that (:func:`read_back`, kept for these
tests and for what the first way cannot tell). Both must find the same
problems, at the same paths, for every recorded request of every family into
every family and for generated requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import API, NO_CORPUS, corpus, needs_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatcodec as cc
from chatcodec import providers
from chatcodec._errors import ChatCodecError
from chatcodec.providers._preflight import _AS_SENT, preflight, read_back
from strategies import requests

FAMILIES = tuple(API)
# The target's model as a caller passes it, and none: the rules of Anthropic
# and Gemini read the model.
MODELS = {
    "openai": "gpt-4o",
    "ollama": "llama3.1",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-3-pro",
    "openai-responses": "gpt-4o",
    "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "cohere": "command-a-03-2025",
}


def both(target: str, request: cc.Request) -> tuple[list[cc.Problem], list[cc.Problem]] | None:
    """The problems found both ways, or ``None`` when the target cannot write the request."""
    writer = providers.get(target)
    losses: list[cc.Loss] = []
    try:
        out = writer.encode_request(request, losses=losses)
    except ChatCodecError:
        return None
    try:
        old = read_back(writer, request, out)
    except ChatCodecError:
        return None  # what the target cannot read back (another provider's raw blocks)
    return preflight(writer, request, out, losses), old


def recorded() -> list[Any]:
    """Every recorded request, with its family."""
    params = [
        pytest.param(family, param.values[0], id=param.id)
        for family in FAMILIES
        for param in corpus(family, "request")
    ]
    return needs_corpus(params, 2)


@pytest.mark.parametrize(("source", "path"), recorded())
def test_every_recorded_request_into_every_family(source: str, path: Path) -> None:
    try:
        request = providers.get(source).decode_request(path.read_bytes())
    except ChatCodecError:
        return  # refused as malformed: convert raises before any preflight
    for target in FAMILIES:
        for model, limit in ((MODELS[target], 1024), (None, None)):
            fill: dict[str, Any] = {}
            if model is not None and request.model != model:
                fill["model"] = model
            if limit is not None and request.max_tokens is None:
                fill["max_tokens"] = limit
            found = both(target, msgspec.structs.replace(request, **fill))
            if found is not None:
                assert found[0] == found[1], (target, model)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests(), target=st.sampled_from(FAMILIES))
def test_generated_requests(request: cc.Request, target: str) -> None:
    found = both(target, request)
    if found is not None:
        assert found[0] == found[1]


@pytest.mark.parametrize("target", sorted(_AS_SENT))
def test_most_recorded_requests_are_checked_without_reading_back(target: str) -> None:
    """The distribution takes the first way: what the encoder knows is enough."""
    taken = total = 0
    for family in FAMILIES:
        if family == target:
            continue
        for param in corpus(family, "request"):
            try:
                request = providers.get(family).decode_request(Path(param.values[0]).read_bytes())
                losses: list[cc.Loss] = []
                providers.get(target).encode_request(request, losses=losses)
            except ChatCodecError:
                continue
            total += 1
            taken += _AS_SENT[target](request, losses) is not None
    if not total:
        pytest.skip(NO_CORPUS)
    assert taken * 10 > total * 7, (taken, total)
