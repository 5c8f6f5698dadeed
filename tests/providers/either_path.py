"""What the direct path's tests share: a conversion checked against the general path."""

from __future__ import annotations

from typing import Any

import pytest

import chatcodec as cc
from chatcodec import providers
from chatcodec._convert import general_request
from chatcodec._errors import ChatCodecError
from chatcodec.bulk import _core
from chatcodec.providers._direct import direct_request

# (model, max_tokens) as convert takes them: none, and the target's model with a limit
FILLS = ((None, None), ("m", 1024))
# The caller's model where the target refuses another family's (the requests name gpt-4o).
OWN_MODEL = {"anthropic": "claude-sonnet-4-5", "cohere": "command-a-03-2025"}


def same(source: str, body: bytes, target: str, model: str | None, max_tokens: int | None) -> bool:
    """Whether the direct path took ``body``; it gives what the general path gives.

    Anthropic's and Cohere's model is the caller's when none is given, as a
    caller names it (each refuses a request without one, or with another's).
    ``convert`` gives the general path's answer whichever path it takes; when
    the general path raises, the direct path declines.
    """
    if model is None:
        model = OWN_MODEL.get(target)
    taken = direct_request(source, target, body, model, max_tokens)
    losses: list[cc.Loss] = []
    reader, writer = providers.get(source), providers.get(target)
    try:
        out, problems = general_request(reader, writer, body, model, max_tokens, True, losses)
    except ChatCodecError:
        assert taken is None  # the general path raises: so does convert
        return False
    converted, report = cc.convert(
        body, source=source, target=target, model=model, max_tokens=max_tokens
    )
    assert converted == out
    assert report == cc.LossReport(tuple(losses), tuple(problems))
    if taken is None:
        return False
    assert taken[0] == out
    assert taken[1] == losses
    assert problems == []  # the direct path declines what the preflight would refuse
    return True


def bulk_paths_agree(
    lines: list[bytes],
    source: str,
    target: str,
    model: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bulk run gives the same records, problems and counts with its direct path and without."""
    options: dict[str, Any] = {"model": model, "max_tokens": 1024, "keep_refused": True}
    fast = cc.convert_lines(lines, source=source, target=target, **options)
    monkeypatch.setattr(_core, "direct", lambda *args, **kwargs: None)
    general = cc.convert_lines(lines, source=source, target=target, **options)
    assert fast.records == general.records
    assert fast.problems == general.problems
    assert fast.counts() == general.counts()
