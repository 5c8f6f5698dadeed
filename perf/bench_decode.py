"""Decoding the 20-message transcript, with each implementation's validation.

chatcodec checks every message's own rules while decoding; ``chatcodec-ordered``
adds the ordering rules of a whole history (``validate(policy="strict")``).
orjson and the plain Structs check nothing; pydantic checks chatcodec's
per-message rules.

Usage: python perf/bench_decode.py -o perf/results/decode.json
"""

from __future__ import annotations

import pyperf

from scenarios import DECODERS, TRANSCRIPT, check_decode, check_refusals


def main() -> None:
    check_decode()
    check_refusals()
    runner = pyperf.Runner()
    runner.metadata["description"] = "Decoding and validating a 20-message transcript"
    for name, decode in DECODERS.items():
        runner.bench_func(f"decode/transcript20/{name}", decode, TRANSCRIPT)


if __name__ == "__main__":
    main()
