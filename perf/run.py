"""Run every benchmark, each in its own process, then write the report.

Results go to ``perf/results/<scenario>.json``, replaced on every run.
``BENCH_FAST=1`` passes ``--fast`` to pyperf: rough numbers in about 3 minutes
(normal mode takes about 6 on 2 cores).

Usage: python perf/run.py  (or ``make bench``)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PERF = Path(__file__).resolve().parent
RESULTS = PERF / "results"
PYPERF_SCENARIOS = (
    "construct",
    "decode",
    "encode",
    "floor",
    "accumulate",
    "providers",
    "streams",
)


def run(script: str, output: Path, *options: str) -> None:
    output.unlink(missing_ok=True)  # pyperf refuses to overwrite a result file
    command = [sys.executable, str(PERF / script), "--output", str(output), *options]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def main() -> None:
    RESULTS.mkdir(exist_ok=True)
    fast = ["--fast"] if os.environ.get("BENCH_FAST") == "1" else []
    for scenario in PYPERF_SCENARIOS:
        run(f"bench_{scenario}.py", RESULTS / f"{scenario}.json", *fast)
    run("bench_memory.py", RESULTS / "memory.json")
    subprocess.run([sys.executable, str(PERF / "report.py")], check=True)


if __name__ == "__main__":
    main()
