"""Encoding the 20 messages of the transcript, each as its implementation decoded them.

chatcodec writes tool-call arguments back as the raw bytes it kept; orjson
encodes them from dicts; pydantic leaves defaults out (``exclude_defaults``),
as the canonical form does.

Usage: python perf/bench_encode.py -o perf/results/encode.json
"""

from __future__ import annotations

import pyperf

from scenarios import ENCODERS, check_encode


def main() -> None:
    check_encode()
    runner = pyperf.Runner()
    runner.metadata["description"] = "Encoding the 20 messages of the transcript"
    for name, (encode, messages) in ENCODERS.items():
        runner.bench_func(f"encode/transcript20/{name}", encode, messages)


if __name__ == "__main__":
    main()
