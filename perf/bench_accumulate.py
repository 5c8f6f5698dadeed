"""Feeding streamed tool-call fragments: the cost per fragment must not grow.

One call's arguments, 1 KB and 64 KB, arrive in 8-character fragments as
OpenAI streams them (index only after the first).  Timings are per fragment
(pyperf ``inner_loops``), so ``64kb / 1kb`` near 1 means O(fragment).  The peer
is what stream code often does: ``calls[index]["arguments"] += fragment``,
which copies the text so far on every fragment.

Usage: python perf/bench_accumulate.py -o perf/results/accumulate.json
"""

from __future__ import annotations

import json
from time import perf_counter
from typing import Any

import pyperf

from chatcodec import ToolCallAccumulator, ToolCallDelta

FRAGMENT = 8


def arguments(size: int) -> str:
    text = json.dumps({"rows": ["x" * 50] * (size // 55)})
    return text[: size - 2] + '"]}' if len(text) > size else text


def deltas(text: str) -> list[ToolCallDelta]:
    pieces = [text[i : i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]
    first = ToolCallDelta(0, "call_1", "write_rows", pieces[0])
    return [first, *(ToolCallDelta(0, arguments_delta=p) for p in pieces[1:])]


def accumulate(stream: list[ToolCallDelta]) -> str:
    acc = ToolCallAccumulator()
    for delta in stream:
        acc.feed(delta)
    return bytes(acc.finish().tool_calls[0].arguments).decode()


def append_to_dict(stream: list[ToolCallDelta]) -> str:
    calls: dict[int, dict[str, Any]] = {}
    for delta in stream:
        index = delta.index or 0
        call = calls.setdefault(index, {"id": delta.id, "name": delta.name, "arguments": ""})
        call["arguments"] += delta.arguments_delta or ""
    return str(calls[0]["arguments"])


STREAMS = {"1kb": deltas(arguments(1024)), "64kb": deltas(arguments(65536))}
FEEDERS = {"chatcodec": accumulate, "append-to-dict": append_to_dict}


def check() -> None:
    for stream in STREAMS.values():
        text = "".join(d.arguments_delta or "" for d in stream)
        json.loads(text)
        for feed in FEEDERS.values():
            if feed(stream) != text:
                raise SystemExit(f"{feed.__name__} does not rebuild the arguments")


def timer(feed: Any, stream: list[ToolCallDelta]) -> Any:
    def time(loops: int) -> float:
        start = perf_counter()
        for _ in range(loops):
            feed(stream)
        return perf_counter() - start

    return time


def main() -> None:
    check()
    runner = pyperf.Runner()
    runner.metadata["description"] = "Per-fragment cost of accumulating streamed tool calls"
    for size, stream in STREAMS.items():
        for name, feed in FEEDERS.items():
            runner.bench_time_func(
                f"accumulate/{size}/{name}", timer(feed, stream), inner_loops=len(stream)
            )


if __name__ == "__main__":
    main()
