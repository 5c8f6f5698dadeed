"""What every fuzz target shares: the header reader, the crash, and where seeds live.

Nothing here needs atheris. ``targets.py`` (the decoders, conversions and
streams) and ``surfaces.py`` (the HTTP readers, stream translation and
encoding, conversations, generated records) both build on it.
"""

from __future__ import annotations

import base64
import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chatcodec as cc

HERE = Path(__file__).parent
DATA = HERE.parent / "data"
CORPUS = HERE.parents[2] / "shared" / "corpus"

API = {
    "openai": "openai-chat",
    "ollama": "ollama-chat",
    "anthropic": "anthropic-messages",
    "gemini": "gemini-generateContent",
    "openai-responses": "openai-responses",
    "bedrock": "bedrock-converse",
    "cohere": "cohere-chat",  # none recorded: the documented bodies in tests/data seed it
}


class Crash(AssertionError):
    """A broken promise that is not an exception of its own (a fuzz finding)."""


class Header:
    """Reads small choices from the front of an input; the rest is the payload."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def byte(self) -> int:
        """The next byte, or 0 past the end."""
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def pick(self, options: tuple[Any, ...]) -> Any:
        return options[self.byte() % len(options)]

    def text(self) -> str:
        """A short string (length byte, then bytes); lone surrogates possible."""
        n = self.byte() % 32
        raw = self.data[self.at : self.at + n]
        self.at += len(raw)
        try:
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return raw.decode("utf-8", "surrogateescape")

    def rest(self) -> bytes:
        return self.data[self.at :]


def ours(action: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The action's answer, or None when it raised one of chatcodec's errors."""
    try:
        return action(*args, **kwargs)
    except cc.ChatCodecError:
        return None


def files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json")) if folder.exists() else []


def corpus(api: str, kind: str) -> list[Path]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with manifest.open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [CORPUS / row["path"] for row in rows if row["api"] == api and row["kind"] == kind]


def stream_raw(path: Path) -> bytes | None:
    try:
        recorded = json.loads(path.read_bytes())
    except ValueError:
        return None
    if not isinstance(recorded, dict):
        return None
    raw, binary = recorded.get("raw"), recorded.get("raw_base64")
    if isinstance(binary, str) and binary:  # Bedrock's event-stream frames
        return base64.b64decode(binary)
    return raw.encode() if isinstance(raw, str) and raw else None


def bodies(name: str, kinds: tuple[str, ...], shared: bool) -> Iterator[bytes]:
    for kind in kinds:
        for path in files(DATA / "providers" / name / kind):
            yield path.read_bytes()
        if shared:
            for path in corpus(API[name], kind):
                yield path.read_bytes()
