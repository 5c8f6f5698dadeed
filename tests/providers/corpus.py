"""Real provider payloads for the codec tests: the curated copies, and the full corpus.

The curated subset lives in ``tests/data/providers/<codec>/`` (sources in its
SOURCES.md) so that a fresh clone tests real traffic. The full recorded corpus in
``../shared/corpus`` is used whenever it exists beside the project (see
``corpus_root`` for the switch that hides it); tests of it skip, saying so, when
it does not.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus_root import CORPUS as CORPUS
from corpus_root import HAVE_CORPUS as HAVE_CORPUS
from corpus_root import NO_CORPUS as NO_CORPUS

HERE = Path(__file__).parent
DATA = HERE.parent / "data" / "providers"

API = {
    "openai": "openai-chat",
    "ollama": "ollama-chat",
    "anthropic": "anthropic-messages",
    "gemini": "gemini-generateContent",
    "openai-responses": "openai-responses",
    "bedrock": "bedrock-converse",
    "cohere": "cohere-chat",
}


def curated(codec: str, kind: str) -> list[Any]:
    """The curated files of one codec and kind, as pytest params."""
    folder = DATA / codec / kind
    return [pytest.param(path, id=path.stem[:80]) for path in sorted(folder.glob("*.json"))]


def corpus(codec: str, kind: str, status: str = "200", *, tool_calls: bool = False) -> list[Any]:
    """Corpus files of one codec's wire family and kind, as pytest params.

    ``kind`` is ``"request"`` (every one), ``"response"`` (HTTP ``status``,
    200 by default) or ``"stream"``; ``tool_calls`` keeps only files with
    tool calls. Empty when the corpus is not there.
    """
    if not HAVE_CORPUS:
        return []
    with (CORPUS / "MANIFEST.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        pytest.param(CORPUS / row["path"], id=row["path"][:100])
        for row in rows
        if row["api"] == API[codec]
        and row["kind"] == kind
        and (kind == "request" or row["http_status"] == status)
        and (not tool_calls or row["has_tool_calls"] == "yes")
    ]


def rejected(path: Path) -> bool:
    """Whether the provider answered this recorded request with an HTTP error.

    The corpus keeps the answer beside the request, under ``response/``, with
    ``__http<status>`` before ``.json`` when it was an error.
    """
    answers = path.parent.parent / "response"
    return any(answers.glob(f"{path.stem}__http*.json"))


def needs_corpus(params: list[Any], width: int = 1) -> list[Any]:
    """``params``, or one skipped param of ``width`` values saying why there are none."""
    if params:
        return params
    return [pytest.param(*[None] * width, marks=pytest.mark.skip(reason=NO_CORPUS), id="no-corpus")]


def same_json(a: Any, b: Any, path: str = "$") -> None:
    """Assert two parsed JSON values are equal, types included (1 is not 1.0)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: keys {sorted(a.keys() ^ b.keys())}"
        for key in a:
            same_json(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same_json(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: values differ"


def load(path: Path) -> tuple[bytes, Any]:
    """A body's bytes and its parsed JSON."""
    data = path.read_bytes()
    return data, json.loads(data)


STREAMS = HERE.parent / "data" / "streams"


def curated_streams(prefix: str) -> list[Any]:
    """The curated recorded streams whose file names start with ``prefix``."""
    return [
        pytest.param(path, id=path.stem[:80]) for path in sorted(STREAMS.glob(f"{prefix}*.json"))
    ]


def run_stream(
    stream: Callable[[], Any],
    raw: bytes,
    sizes: list[int] | None = None,
    *,
    allow_incomplete: bool = False,
) -> tuple[list[Any], Any]:
    """Feed ``raw`` to a new decoder in pieces of ``sizes`` (whole if None).

    Returns the events and the response (``allow_incomplete`` as ``finish`` takes it).
    """
    decoder = stream()
    events: list[Any] = []
    if sizes is None:
        events += decoder.feed(raw)
    else:
        at = 0
        for size in sizes:
            events += decoder.feed(raw[at : at + size])
            at += size
        events += decoder.feed(raw[at:])
    events += decoder.flush()
    return events, decoder.finish(allow_incomplete=allow_incomplete)


def random_sizes(length: int, seed: int) -> list[int]:
    """Piece sizes from 1 to 64 bytes covering ``length``, the same for a seed."""
    rng = random.Random(seed)
    sizes: list[int] = []
    while sum(sizes) < length:
        sizes.append(rng.randint(1, 64))
    return sizes


def fast_coverage(
    codec: str, kind: str, fast: Callable[[bytes], Any]
) -> tuple[list[Path], list[Path]]:
    """The corpus files of a codec and kind, and those a typed fast path takes.

    Skips the calling test when the corpus is not there.
    """
    paths: list[Path] = [param.values[0] for param in corpus(codec, kind)]
    if not paths:
        pytest.skip(NO_CORPUS)
    return paths, [path for path in paths if fast(path.read_bytes()) is not None]
