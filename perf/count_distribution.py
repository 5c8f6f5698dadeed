"""Instructions per conversion over the recorded corpus, counted with callgrind.

Timings on a shared machine move with its load; instruction counts do not. For
each pair asked, this runs ``valgrind --tool=callgrind`` twice on the same
process: once converting every recorded request of the source family to the
target once (as ``bench_distribution.py`` does, preflight included) and once
doing nothing but the same imports and reading; the difference, divided by the
number of conversions, is the count per conversion (a request refused as
malformed is tried, and not counted). A pair with no target (``anthropic:``)
counts decoding the source alone (``decode_request``). Compare two source trees
by running it with ``PYTHONPATH`` set to each one's ``src``.

Usage: python perf/count_distribution.py anthropic:openai [openai:anthropic anthropic: ...]
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import chatcodec as cc
from bench_distribution import CORPUS, MAX_TOKENS, MODELS, recorded_requests
from chatcodec import providers

PERF = Path(__file__).resolve().parent


def workload(source: str, target: str, run: bool) -> None:
    bodies = [body for _, body in recorded_requests(CORPUS)[source]]
    converted = 0
    if run and not target:
        decode = providers.get(source).decode_request
        for body in bodies:
            try:
                decode(body)
            except cc.ChatCodecError:
                continue
            converted += 1
    elif run:
        for body in bodies:
            try:
                cc.convert(
                    body, source=source, target=target, model=MODELS[target], max_tokens=MAX_TOKENS
                )
            except cc.ChatCodecError:
                continue  # a refused body costs little, and the same in both runs compared
            converted += 1
    print(converted)


def instructions(pair: str, run: bool) -> tuple[int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--workload",
                pair,
                "1" if run else "0",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        total = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
        if total is None:
            raise SystemExit(f"no summary in callgrind's output for {pair}")
        return int(total.group(1)), int(done.stdout.split()[-1])


def main() -> None:
    if sys.argv[1] == "--workload":
        source, target = sys.argv[2].split(":")
        workload(source, target, sys.argv[3] == "1")
        return
    for pair in sys.argv[1:]:
        base, _ = instructions(pair, run=False)
        full, count = instructions(pair, run=True)
        done = "conversions" if pair.split(":")[1] else "decodes"
        print(f"{pair}: {count} {done}, {(full - base) / count:,.0f} instructions each")


if __name__ == "__main__":
    main()
