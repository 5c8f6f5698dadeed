"""Every citation a stream says is carried into each family, or reported.

A translation works on events: a family's decoder that folds citations into
its response without an event for them, or an encoder that takes the event
and writes nothing, loses them without a word. For every curated response
that cites, written as its family's stream and translated into every
family: the target's decoder reads as many citations as the source had, or
the report names a citation (its path or its reason).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import chatcodec as cc
from chatcodec import providers

DATA = Path(__file__).parent.parent / "data" / "providers"


def cited(response: cc.Response) -> int:
    """How many citations the response's text parts hold."""
    count = 0
    for choice in response.choices:
        content = choice.message.content if choice.message is not None else None
        for part in content if type(content) is tuple else ():
            count += len(getattr(part, "citations", ()))
    return count


def citing() -> list[Any]:
    """Each curated response of one answer that cites, by family."""
    out = []
    for name in providers.NAMES:
        codec = providers.get(name)
        folder = DATA / name.replace("-", "_") / "response"
        if not folder.is_dir():
            folder = DATA / name / "response"
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
            try:
                response = codec.decode_response(path.read_bytes())
            except cc.ChatCodecError:
                continue
            if len(response.choices) == 1 and cited(response):
                out.append(pytest.param(name, path, id=f"{name}-{path.stem[:50]}"))
    return out


CITING = citing()


def test_every_citing_family_is_here() -> None:
    assert {case.values[0] for case in CITING} >= {"anthropic", "gemini", "openai-responses"}


@pytest.mark.parametrize(("source", "path"), CITING)
@pytest.mark.parametrize("target", providers.NAMES)
def test_carried_or_reported(source: str, path: Path, target: str) -> None:
    response = providers.get(source).decode_response(path.read_bytes())
    stream = providers.get(source).encode_stream(response)
    translator = cc.translate_stream(source, target)
    out = translator.feed(stream)
    tail, report = translator.finish()
    decoder = providers.get(target).stream()
    decoder.feed(out + tail)
    got = decoder.finish()
    if cited(got) < cited(response):
        # Said: a loss of a citation, or of a part that held some, whole.
        content = response.choices[0].message.content  # type: ignore[union-attr]
        parts = [
            f"$.choices[0].message.content[{k}]"
            for k, part in enumerate(content if type(content) is tuple else ())
            if getattr(part, "citations", ())
        ]
        said = [
            loss
            for loss in report.losses
            if "citation" in loss.path or "citation" in loss.reason or loss.path in parts
        ]
        assert said, f"{cited(response) - cited(got)} citations lost without a word"
