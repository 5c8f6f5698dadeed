"""Provider codecs: decoding real responses, and converting a request between families.

Usage: python perf/bench_providers.py -o perf/results/providers.json
"""

from __future__ import annotations

import pyperf

from provider_scenarios import (
    OPENAI_REQUEST,
    RESPONSES,
    TRANSCRIPT,
    canonical_round_trip,
    check_convert,
    check_decode,
    converter,
    decoders,
)

FAMILIES = ("openai", "anthropic", "gemini", "ollama", "openai-responses", "bedrock", "cohere")
TARGETS = ("anthropic", "gemini", "openai-responses", "bedrock", "cohere")


def main() -> None:
    runner = pyperf.Runner()
    if not runner.parse_args().worker:  # the main process checks, its workers time
        for name in FAMILIES:
            check_decode(name)
        for target in TARGETS:
            check_convert(target)
    runner.metadata["description"] = "Provider codecs on real responses, and conversion"
    for name in FAMILIES:
        for implementation, decode in decoders(name).items():
            runner.bench_func(f"decode/{name}-response/{implementation}", decode, RESPONSES[name])
    for target in TARGETS:
        case = f"convert/openai-to-{target}-20"
        runner.bench_func(f"{case}/chatcodec", converter(target), OPENAI_REQUEST)
        runner.bench_func(f"{case}/canonical", canonical_round_trip, TRANSCRIPT)


if __name__ == "__main__":
    main()
