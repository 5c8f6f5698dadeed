"""Every recorded and curated request of each family converts the same by either path.

The direct path of each pair (``chatcodec.providers._direct``) gives the general
path's bytes, losses and problems, or declines: checked on each request of the
source family, to each other family, as sent and with the target's model and a
token limit (see ``either_path.same``). The ``test_direct*`` file of each source
holds what is particular to its reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import corpus, curated, needs_corpus
from either_path import FILLS, bulk_paths_agree, same

from chatcodec import providers

SOURCES = ("openai", "anthropic", "gemini", "openai-responses", "bedrock", "ollama", "cohere")


def _requests(files: Callable[[str, str], list[Any]]) -> list[Any]:
    """``(source, target, path)`` for each request file of each source, to each other family."""
    return [
        pytest.param(source, target, param.values[0], id=f"{source}-{target}-{param.id}")
        for source in SOURCES
        for param in files(source, "request")
        for target in providers.NAMES
        if target != source
    ]


@pytest.mark.parametrize("fill", FILLS, ids=("as-sent", "filled"))
@pytest.mark.parametrize(("source", "target", "path"), needs_corpus(_requests(corpus), 3))
def test_recorded(
    source: str, target: str, path: Path, fill: tuple[str | None, int | None]
) -> None:
    same(source, path.read_bytes(), target, *fill)


@pytest.mark.parametrize("fill", FILLS, ids=("as-sent", "filled"))
@pytest.mark.parametrize(("source", "target", "path"), _requests(curated))
def test_curated(source: str, target: str, path: Path, fill: tuple[str | None, int | None]) -> None:
    same(source, path.read_bytes(), target, *fill)


# The sources whose bulk runs are proven here (the others' files prove theirs
# with batch forms of their own).
BULK_SOURCES = ("gemini", "bedrock", "ollama", "cohere")


@pytest.mark.parametrize("model", [None, "m"], ids=("as-sent", "named"))
@pytest.mark.parametrize(
    ("source", "target"),
    [(source, target) for source in BULK_SOURCES for target in providers.NAMES if target != source],
)
def test_a_bulk_run_gives_the_general_records(
    source: str, target: str, model: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [msgspec.json.encode(msgspec.json.decode(body)) for body in _bodies(source)]
    bulk_paths_agree(lines, source, target, model, monkeypatch)


def _bodies(source: str) -> list[bytes]:
    """The recorded and curated request bodies of ``source`` that are JSON objects."""
    params = corpus(source, "request") + curated(source, "request")
    bodies = [param.values[0].read_bytes() for param in params]
    return [body for body in bodies if type(json.loads(body)) is dict]
