"""How much of the recorded distribution each typed request reader takes, and why it declines.

Each family's ``decode_request`` tries a typed fast reader (``_fastreq.py``)
before the general decoder; a request it declines costs the general path.
This script runs every family's reader over its recorded requests (the
corpus's, chosen by the MANIFEST's ``api`` column, and the curated ones in
``tests/data/providers``) and, with ``--read-back``, over what ``convert``
writes for the family from every other family's recorded requests (what the
preflight reads back). For each decline it names the reason: the typed
decode's error (msgspec names the key and where it is, with list indexes
folded to ``[]``), or the line of the reader that gave up.

Usage: python perf/fast_readers.py [--read-back] [--top N] [family ...]
"""

from __future__ import annotations

import csv
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import msgspec

import chatcodec as cc
from chatcodec import providers

PERF = Path(__file__).resolve().parent
ROOT = PERF.parent
CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "tests" / "data" / "providers"
API = {
    "openai": "openai-chat",
    "ollama": "ollama-chat",
    "anthropic": "anthropic-messages",
    "gemini": "gemini-generateContent",
    "openai-responses": "openai-responses",
    "bedrock": "bedrock-converse",
    "cohere": "cohere-chat",
}
MODELS = {
    "openai": "gpt-4o",
    "ollama": "llama3.1",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "openai-responses": "gpt-4o",
    "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "cohere": "command-a-03-2025",
}
READERS = {
    "openai": "chatcodec.providers.openai._fastreq",
    "anthropic": "chatcodec.providers.anthropic._fastreq",
    "gemini": "chatcodec.providers.gemini._fastreq",
    "openai-responses": "chatcodec.providers.openai_responses._fastreq",
    "bedrock": "chatcodec.providers.bedrock._fastreq",
    "ollama": "chatcodec.providers.ollama._fastreq",
    "cohere": "chatcodec.providers.cohere._fast",
}


def reader(family: str) -> Callable[[bytes], Any] | None:
    """The family's typed request reader, or None when it has none."""
    try:
        module = __import__(READERS[family], fromlist=["fast_request"])
    except ImportError:
        return None
    return getattr(module, "fast_request", None)


def recorded(family: str) -> list[bytes]:
    """The family's recorded request bodies: the corpus's, then the curated ones."""
    bodies: list[bytes] = []
    if (CORPUS / "MANIFEST.tsv").is_file():
        with (CORPUS / "MANIFEST.tsv").open() as f:
            for row in csv.DictReader(f, delimiter="\t"):
                if row["kind"] == "request" and row["api"] == API[family]:
                    bodies.append((CORPUS / row["path"]).read_bytes())
    bodies += [p.read_bytes() for p in sorted((DATA / family / "request").glob("*.json"))]
    return bodies


def read_back(family: str, sources: dict[str, list[bytes]]) -> list[bytes]:
    """What ``convert`` writes for ``family`` from every other family's recorded requests."""
    out: list[bytes] = []
    for source, bodies in sources.items():
        if source == family:
            continue
        for body in bodies:
            try:
                written, _ = cc.convert(
                    body,
                    source=source,
                    target=family,
                    model=MODELS[family],
                    max_tokens=1024,
                    check=False,
                )
            except cc.ChatCodecError:
                continue
            out.append(written)
    return out


def why(read: Callable[[bytes], Any], body: bytes) -> str:
    """The reason the reader declined ``body``: the first exception it met, or where it gave up."""
    module = sys.modules[read.__module__].__file__
    seen: list[str] = []

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != module:
            return None
        if event == "exception" and not seen:
            error = arg[1]
            text = str(error)
            if isinstance(error, msgspec.ValidationError | msgspec.DecodeError):
                text = re.sub(r"\[\d+\]", "[]", text)
            else:
                text = f"{type(error).__name__} {text}".strip()
            seen.append(f"{text} ({frame.f_code.co_name}:{frame.f_lineno})")
        elif event == "return" and arg is None and frame.f_code is read.__code__ and not seen:
            seen.append(f"returned None ({frame.f_code.co_name}:{frame.f_lineno})")
        return trace

    sys.settrace(trace)
    try:
        read(body)
    finally:
        sys.settrace(None)
    return seen[0] if seen else "unknown"


def report(family: str, label: str, bodies: list[bytes], top: int) -> None:
    read = reader(family)
    if read is None:
        print(f"{family} ({label}): no typed reader; {len(bodies)} requests take the general path")
        return
    reasons: Counter[str] = Counter()
    taken = refused = 0
    for body in bodies:
        try:
            providers.get(family).decode_request(body)
        except cc.ChatCodecError:
            refused += 1  # the general path refuses it too: not a decline
            continue
        if read(body) is not None:
            taken += 1
        else:
            reasons[why(read, body)] += 1
    valid = len(bodies) - refused
    declined = valid - taken
    share = declined / valid if valid else 0.0
    print(
        f"{family} ({label}): {valid} valid requests ({refused} refused), "
        f"declined {declined} ({share:.0%})"
    )
    for reason, count in reasons.most_common(top):
        print(f"  {count:5d}  {reason}")


def main() -> None:
    args = sys.argv[1:]
    back = "--read-back" in args
    top = 12
    if "--top" in args:
        top = int(args[args.index("--top") + 1])
    families = [a for a in args if a in API] or list(API)
    sources = {name: recorded(name) for name in API}
    for family in families:
        report(family, "recorded", sources[family], top)
        if back:
            report(family, "convert output", read_back(family, sources), top)


if __name__ == "__main__":
    main()
