"""Tell whether a change made chatcodec faster or slower, beyond noise.

Usage: python perf/compare.py BEFORE AFTER

BEFORE and AFTER are result directories (``perf/recorded``, ``perf/results``,
or a copy of either) or single pyperf JSON files. For every benchmark both
hold, it prints the two means, AFTER over BEFORE, and a verdict: "faster" or
"slower" when Welch's t statistic over the two sets of values passes 2.6
(about p < 0.01 for the 60 values of a normal run) *and* the means differ by
more than 5%; "same" otherwise. A QUICK run has too few values for most
changes to pass: compare normal runs.

The workflow: record a run on ``main`` (``make bench-record``, or copy
``perf/results`` aside after ``make bench``), make the change, run
``make bench`` again, then ``python perf/compare.py perf/recorded perf/results``.
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path
from typing import Any

import pyperf

T_THRESHOLD = 2.6
MIN_CHANGE = 0.05


def benchmarks(where: Path) -> dict[str, Any]:
    files = sorted(where.glob("*.json")) if where.is_dir() else [where]
    out: dict[str, Any] = {}
    for path in files:
        if path.name in ("memory.json", "environment.json", "bulk.json"):
            continue
        for bench in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks():
            out[bench.get_name()] = bench
    return out


def welch_t(a: list[float], b: list[float]) -> float:
    if len(a) < 2 or len(b) < 2:
        return 0.0
    va, vb = statistics.variance(a), statistics.variance(b)
    scale = math.sqrt(va / len(a) + vb / len(b))
    if scale == 0:
        return math.inf if statistics.fmean(a) != statistics.fmean(b) else 0.0
    return (statistics.fmean(b) - statistics.fmean(a)) / scale


def verdict(before: Any, after: Any) -> tuple[float, str]:
    ratio = after.mean() / before.mean()
    t = welch_t(list(before.get_values()), list(after.get_values()))
    if abs(t) < T_THRESHOLD or abs(ratio - 1) <= MIN_CHANGE:
        return ratio, "same"
    return ratio, "slower" if ratio > 1 else "faster"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    before, after = (benchmarks(Path(arg)) for arg in argv)
    names = [name for name in before if name in after]
    if not names:
        print("no benchmark is in both")
        return 1
    width = max(len(name) for name in names)
    counts = {"faster": 0, "slower": 0, "same": 0}
    for name in names:
        b, a = before[name], after[name]
        ratio, said = verdict(b, a)
        counts[said] += 1
        print(
            f"{name:<{width}}  {b.format_value(b.mean()):>10} -> {a.format_value(a.mean()):>10}"
            f"  {ratio:5.2f}x  {said}"
        )
    print(", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
