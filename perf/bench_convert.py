"""Converting recorded OpenAI requests to Anthropic and Gemini, against peers and the floor.

Usage: python perf/bench_convert.py -o perf/results/convert.json
"""

from __future__ import annotations

import pyperf

from convert_scenarios import BODIES, CASES, checked


def main() -> None:
    runner = pyperf.Runner()
    worker = runner.parse_args().worker
    runner.metadata["description"] = "OpenAI requests converted, against peers and the floor"
    for target, size in CASES:
        kept, left_out = checked(target, size)
        if not worker:  # the main process says what it left out; its workers time
            for name, why in left_out.items():
                print(f"convert/openai-to-{target}/{size}: {name} left out: {why}")
        for name, convert in kept.items():
            runner.bench_func(f"convert/openai-to-{target}-{size}/{name}", convert, BODIES[size])


if __name__ == "__main__":
    main()
