"""Run every benchmark, each in its own process, then write the report.

Results go to ``perf/results/`` (ignored by git): one pyperf JSON file per
script, ``REPORT.md`` with every table, and ``charts/``. Nothing in the
checkout changes unless you ask with ``--record``.

- ``python perf/run.py`` (``make bench``): pyperf's normal mode, 20 worker
  processes a benchmark; about 25 minutes on 2 cores.
- ``QUICK=1`` (``make bench QUICK=1``): one worker process of 6 values a benchmark;
  every scenario in about 2 minutes on an idle 2-core machine, rough numbers.
- ``bench_distribution.py`` runs last: every recorded request of the corpus
  converted to every other family, against the orjson floor and
  linguafranca (``--quick`` with ``QUICK=1``); without the corpus it says so
  and the rest of the run is unaffected.
- ``--record`` (``make bench-record``): after the run, the results become the
  published ones: copied to ``perf/recorded/``, the tables into
  ``perf/README.md`` and the goals into the project README, the charts into
  ``perf/charts/``.

Compare two runs with ``python perf/compare.py perf/recorded perf/results``.
"""

from __future__ import annotations

import argparse
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
    "convert",
    "streams",
)
QUICK_OPTIONS = ["--processes", "1", "--values", "6", "--warmups", "1", "--min-time", "0.02"]


def run(script: str, output: Path, *options: str) -> None:
    output.unlink(missing_ok=True)  # pyperf refuses to overwrite a result file
    command = [sys.executable, str(PERF / script), "--output", str(output), *options]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="publish the results")
    parser.add_argument(
        "only", nargs="*", help=f"scenarios to run (of {PYPERF_SCENARIOS} and distribution)"
    )
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    quick = os.environ.get("QUICK") == "1"
    options = [*QUICK_OPTIONS, "--quiet"] if quick else ["--quiet"]
    for scenario in args.only or PYPERF_SCENARIOS:
        if scenario != "distribution":
            run(f"bench_{scenario}.py", RESULTS / f"{scenario}.json", *options)
    if not args.only:
        run("bench_memory.py", RESULTS / "memory.json")
    if not args.only or "distribution" in args.only:
        # Every recorded request of every pair (skipped, saying so, without the corpus).
        command = [sys.executable, str(PERF / "bench_distribution.py")]
        command += ["--quick"] if quick else []
        command += ["--record"] if args.record else []
        print("$", " ".join(command), flush=True)
        subprocess.run(command, check=True)
    mode = ["--mode", "QUICK=1 make bench" if quick else "make bench"]
    record = ["--record"] if args.record else []
    subprocess.run([sys.executable, str(PERF / "report.py"), *mode, *record], check=True)


if __name__ == "__main__":
    main()
