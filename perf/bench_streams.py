"""Streamed responses: decoding and accumulating tool calls, chunk by chunk; writing one.

Every implementation is fed the same bytes in the same network-sized pieces
and must end with the same tool calls and finish reason (checked first, see
``stream_scenarios.py``). Timings are per chunk (pyperf ``inner_loops``): the
whole stream, from the first piece to the final response, divided by its
number of chunks. The preview cases are per fragment. ``encode/openai-200``
writes the same stream again from its events, and ``translate/anthropic-corpus``
re-sends the recorded Anthropic stream as OpenAI chunks, piece by piece
(``stream_encode_scenarios.py``).

Usage: python perf/bench_streams.py -o perf/results/streams.json
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Any

import pyperf

from stream_encode_scenarios import (
    CASE,
    CHUNKS,
    EVENTS,
    TRANSLATED,
    check_encode,
    check_translate,
    decode_alone,
    encode_chatcodec,
    encode_floor,
    translate_chatcodec,
)
from stream_scenarios import (
    CHECKS,
    PREVIEWS,
    STREAMS,
    implementations,
    preview_chatcodec,
    preview_jiter,
)


def timer(feed: Callable[[Any], Any], data: Any) -> Callable[[int], float]:
    def time(loops: int) -> float:
        start = perf_counter()
        for _ in range(loops):
            feed(data)
        return perf_counter() - start

    return time


def timers() -> dict[str, tuple[Callable[[int], float], int]]:
    """Every benchmark: its name, its timer and the chunks (or fragments) per run."""
    out: dict[str, tuple[Callable[[int], float], int]] = {}
    for case, stream in STREAMS.items():
        for name, (feed, _) in implementations(case).items():
            out[f"stream/{case}/{name}"] = (timer(feed, stream.pieces), len(stream.payloads))
    for case, (fragments, deltas) in PREVIEWS.items():
        out[f"{case}/chatcodec"] = (timer(preview_chatcodec, deltas), len(fragments))
        out[f"{case}/jiter"] = (timer(preview_jiter, fragments), len(fragments))
    chunks = len(STREAMS[CASE].payloads)
    out[f"encode/{CASE}/chatcodec"] = (timer(encode_chatcodec, EVENTS), chunks)
    out[f"encode/{CASE}/msgspec-floor"] = (timer(encode_floor, CHUNKS), chunks)
    source = STREAMS[TRANSLATED]
    out[f"translate/{TRANSLATED}/chatcodec"] = (
        timer(translate_chatcodec, source.pieces),
        len(source.payloads),
    )
    out[f"translate/{TRANSLATED}/decode-alone"] = (
        timer(decode_alone, source.pieces),
        len(source.payloads),
    )
    return out


def main() -> None:
    runner = pyperf.Runner()
    if not runner.parse_args().worker:  # the main process checks, its workers time
        for check in CHECKS.values():
            check()
        check_encode()
        check_translate()
    runner.metadata["description"] = "Stream decoding and tool-call accumulation, per chunk"
    for name, (time, inner) in timers().items():
        runner.bench_time_func(name, time, inner_loops=inner)


if __name__ == "__main__":
    main()
