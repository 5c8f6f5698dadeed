"""Growth of stream feeding and previews: the cost per byte must stay flat.

Not a pyperf suite: each line is one run, timed with ``perf_counter``, because
the question is how the cost grows with the input, not its exact value.

- **feed**: one event (an SSE ``data:`` line, an NDJSON line, a JSON-array
  element) of 1 MB and 10 MB (add 100 MB with ``GROWTH_BIG=1``), holding one
  string, fed to the family's stream decoder 2 bytes, 1 KB and 64 KB at a
  time. Reports nanoseconds per byte: a flat column means O(bytes) however the
  input is split.
- **preview**: a tool call whose arguments are one string still arriving, in
  1 KB fragments, with ``preview()`` after every 64th fragment, for 1, 2 and
  4 MiB. ``drop``: the caller lets each preview go before the next (the string
  grows in place); ``keep``: it still holds the last one, so each preview must
  copy the string it returns.

Each run checks its result before it counts. Usage::

    PYTHONPATH=src python perf/stream_growth.py [-o perf/results/growth.json]
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from time import perf_counter
from typing import Any

from chatcodec import ToolCallAccumulator, ToolCallDelta, providers

MB = 1_000_000
SPLITS = {"2 B": 2, "1 KB": 1024, "64 KB": 65536}


def event(family: str, size: int) -> tuple[bytes, str]:
    """One stream whose first event holds a string of ``size`` bytes; and that string."""
    text = "x" * size
    if family == "openai":
        chunk = (
            b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
            b'"choices":[{"index":0,"delta":{"content":"' + text.encode() + b'"},'
            b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        )
    elif family == "anthropic":
        chunk = (
            b'event: message_start\ndata: {"type":"message_start","message":{"id":"m",'
            b'"type":"message","role":"assistant","model":"c","content":[],"usage":'
            b'{"input_tokens":1,"output_tokens":1}}}\n\n'
            b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
            b'"content_block":{"type":"text","text":"' + text.encode() + b'"}}\n\n'
            b'event: message_delta\ndata: {"type":"message_delta","delta":'
            b'{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n'
            b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
        )
    elif family == "gemini":
        chunk = (
            b'[{"candidates":[{"content":{"role":"model","parts":[{"text":"'
            + text.encode()
            + b'"}]},"finishReason":"STOP"}]}]'
        )
    else:
        chunk = (
            b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"'
            + text.encode()
            + b'"},"done":true,"done_reason":"stop"}\n'
        )
    return chunk, text


def feed_cost(family: str, size: int, split: int) -> float:
    """Nanoseconds per byte to decode a one-event stream fed ``split`` bytes at a time."""
    data, text = event(family, size)
    view = memoryview(data)
    pieces = [bytes(view[i : i + split]) for i in range(0, len(data), split)]
    decoder = providers.get(family).stream(max_line=2 * len(data), max_event=2 * len(data))
    start = perf_counter()
    for piece in pieces:
        decoder.feed(piece)
    response = decoder.finish()
    elapsed = perf_counter() - start
    message = response.message
    if message is None or message.text != text:
        raise SystemExit(f"{family}: wrong answer")
    return elapsed / len(data) * 1e9


def preview_cost(mib: int, keep: bool) -> float:
    """Microseconds per preview of a string still arriving, grown to ``mib`` MiB."""
    fragment = "y" * 1024
    count = mib * 1024
    acc = ToolCallAccumulator(preview=True, max_arguments=2 * count * 1024)
    acc.feed(ToolCallDelta(0, "c", "f", '{"text": "'))
    held: Any = None
    previews = 0
    start = perf_counter()
    for i in range(count):
        acc.feed(ToolCallDelta(0, arguments_delta=fragment))
        if i % 64 == 63:
            if keep:
                held = acc.preview(0)
            else:
                acc.preview(0)
            previews += 1
    elapsed = perf_counter() - start
    if len(acc.preview(0)["text"]) != count * 1024 or (keep and held is None):
        raise SystemExit("preview: wrong answer")
    return elapsed / previews * 1e6


def table(title: str, rows: dict[str, dict[str, float]], unit: str) -> None:
    columns = list(next(iter(rows.values())))
    print(f"\n{title} ({unit})")
    print(f"{'':24}" + "".join(f"{c:>10}" for c in columns))
    for name, row in rows.items():
        print(f"{name:24}" + "".join(f"{row[c]:10.2f}" for c in columns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", help="write the results as JSON")
    args = parser.parse_args()
    sizes = [1 * MB, 10 * MB] + ([100 * MB] if os.environ.get("GROWTH_BIG") == "1" else [])
    feed: dict[str, dict[str, float]] = {}
    for family in ("openai", "anthropic", "gemini", "ollama"):
        for size in sizes:
            feed[f"{family} {size // MB} MB"] = {
                name: feed_cost(family, size, split) for name, split in SPLITS.items()
            }
    table("feed, one event split into pieces", feed, "ns per byte")
    runs: dict[str, Callable[[int], float]] = {
        "drop": lambda mib: preview_cost(mib, keep=False),
        "keep": lambda mib: preview_cost(mib, keep=True),
    }
    preview = {
        f"{mib} MiB open string": {name: run(mib) for name, run in runs.items()}
        for mib in (1, 2, 4)
    }
    table("preview every 64 KB of an open string", preview, "us per preview")
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"feed_ns_per_byte": feed, "preview_us": preview}, f, indent=2)


if __name__ == "__main__":
    main()
