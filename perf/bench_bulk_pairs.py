"""Bulk conversion on every pair: ``convert_lines`` throughput against the orjson floor.

``bench_bulk.py`` measures one pair (OpenAI Chat to Anthropic) on real fine-tuning
requests, with the command, its processes and the peers. This script measures the
pure function on every pair: for each family, the recorded requests of the corpus
(``../shared/corpus``, or ``CHATCODEC_CORPUS``; files chosen by the MANIFEST's
``api`` column, as ``bench_distribution.py`` chooses them), each written on one
line, repeated until the input holds ``--mb`` megabytes (8 by default), then, in
this process and interleaved, ``--repeat`` times (5 by default):

- ``floor``: ``orjson.loads`` then ``orjson.dumps`` of each line, no conversion;
- ``convert_lines`` of the same lines into each other family, with the target's
  model and ``max_tokens=1024`` (as ``bench_distribution.py`` passes them).

Per pair: the median MB/s of each (the spread from the slowest to the fastest
run), ``convert_lines`` as a share of the floor against the goal (at least 35 %),
and how many lines were converted (with or without losses), refused by the
target's rules or reported as errors (a run goes on past both; every line is
accounted for). A family with no
recorded request (Cohere) is a target only. Without the corpus the script says so
and exits 0.

Results go to ``perf/results/bulk_pairs.json``; with ``--record``, to
``perf/recorded/bulk_pairs.json`` and the table between the ``bulk-pairs`` markers
of ``perf/README.md``.

Usage: python perf/bench_bulk_pairs.py [--mb 8] [--repeat 5] [--record] [--pair a:b ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from bench_distribution import CORPUS, FAMILIES, LABEL, MAX_TOKENS, MODELS, recorded_requests
from chatcodec.bulk import convert_lines

PERF = Path(__file__).resolve().parent
RESULTS = PERF / "results" / "bulk_pairs.json"
RECORDED = PERF / "recorded" / "bulk_pairs.json"
README = PERF / "README.md"
START, END = "<!-- bulk-pairs:start -->", "<!-- bulk-pairs:end -->"
GOAL = 0.35  # convert_lines at least 35 % of the floor, per process, on every pair


def lines_of(bodies: list[bytes], megabytes: float) -> list[bytes]:
    """The bodies written on one line each, repeated to about ``megabytes`` MB."""
    one = [orjson.dumps(orjson.loads(body)) for body in bodies]
    size = sum(len(line) + 1 for line in one)
    if not size:
        return []
    times = max(1, round(megabytes * 1e6 / size))
    return one * times


def floor(lines: list[bytes]) -> float:
    started = time.perf_counter()
    for line in lines:
        orjson.dumps(orjson.loads(line))
    return time.perf_counter() - started


def convert(lines: list[bytes], source: str, target: str) -> tuple[float, Any]:
    started = time.perf_counter()
    result = convert_lines(
        lines, source=source, target=target, model=MODELS[target], max_tokens=MAX_TOKENS
    )
    return time.perf_counter() - started, result


def measure(source: str, target: str, lines: list[bytes], repeat: int) -> dict[str, Any]:
    size = sum(len(line) + 1 for line in lines)
    floors: list[float] = []
    runs: list[float] = []
    result: Any = None
    for _ in range(repeat):  # interleaved: a change in the machine's load hits both
        floors.append(floor(lines))
        seconds, result = convert(lines, source, target)
        runs.append(seconds)
    counts = result.counts()
    assert counts["lines"] == len(lines), counts
    mb = size / 1e6
    return {
        "source": source,
        "target": target,
        "lines": len(lines),
        "megabytes": mb,
        "floor": [mb / s for s in floors],
        "convert_lines": [mb / s for s in runs],
        "converted": counts["converted"] + counts["lossy"],
        "refused": counts["refused"],
        "errors": counts["failed"] + counts["unread"],
    }


def summary(pair: dict[str, Any]) -> dict[str, Any]:
    floor_mbs = statistics.median(pair["floor"])
    ours = statistics.median(pair["convert_lines"])
    shares = sorted(o / f for o, f in zip(pair["convert_lines"], pair["floor"], strict=True))
    return {
        **{k: pair[k] for k in ("source", "target", "lines", "converted", "refused", "errors")},
        "floor_mbs": floor_mbs,
        "mbs": ours,
        "mbs_spread": [min(pair["convert_lines"]), max(pair["convert_lines"])],
        "share": statistics.median(shares),
        "share_spread": [shares[0], shares[-1]],
    }


def table(summaries: list[dict[str, Any]], header: str) -> list[str]:
    met = sum(s["share"] >= GOAL for s in summaries)
    out = [
        header,
        "",
        f"Goal: `convert_lines` at least {GOAL:.0%} of the floor on every pair; "
        f"met on {met} of {len(summaries)}.",
        "",
        "| pair | lines (converted / refused / errors) | floor MB/s | convert_lines MB/s "
        "| of the floor | met |",
        "|---|---|---|---|---|---|",
    ]
    for s in summaries:
        low, high = s["mbs_spread"]
        share_low, share_high = s["share_spread"]
        out.append(
            f"| {LABEL[s['source']]} -> {LABEL[s['target']]} "
            f"| {s['lines']:,} ({s['converted']:,} / {s['refused']:,} / {s['errors']:,}) "
            f"| {s['floor_mbs']:.0f} | {s['mbs']:.1f} [{low:.1f}-{high:.1f}] "
            f"| {s['share']:.0%} [{share_low:.0%}-{share_high:.0%}] "
            f"| {'yes' if s['share'] >= GOAL else '**no**'} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=8.0, help="input size per family (MB)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each case")
    parser.add_argument("--pair", action="append", default=[], help="source:target, repeatable")
    parser.add_argument("--record", action="store_true", help="publish the table")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    if not (CORPUS / "MANIFEST.tsv").is_file():
        print(f"the recorded corpus is not at {CORPUS}: bulk pairs are not measured")
        return
    bodies = recorded_requests(CORPUS)
    wanted = [tuple(p.split(":", 1)) for p in args.pair] or [
        (s, t) for s in FAMILIES for t in FAMILIES if s != t and bodies[s]
    ]
    inputs = {s: lines_of([b for _, b in bodies[s]], args.mb) for s, _ in wanted}
    started = time.perf_counter()
    summaries = []
    for source, target in wanted:
        s = summary(measure(source, target, inputs[source], args.repeat))
        summaries.append(s)
        print(
            f"{source:>16} -> {target:<16} {s['mbs']:7.1f} MB/s, "
            f"{s['share']:.0%} of the floor ({s['floor_mbs']:.0f} MB/s)",
            flush=True,
        )
    load = os.getloadavg()
    header = (
        f"`convert_lines` in one process over each family's recorded requests, one per "
        f"line, repeated to about {args.mb:g} MB; median of {args.repeat} runs interleaved "
        f"with the floor (orjson.loads + orjson.dumps per line), spread from the slowest to "
        f"the fastest; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
        f"{load[0]:.1f} at the end (a shared machine: read the shares, each taken against "
        f"the floor of the same run). Produced by `perf/bench_bulk_pairs.py`."
    )
    report = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "repeat": args.repeat,
        "megabytes": args.mb,
        "seconds": time.perf_counter() - started,
        "load_average": load,
        "summaries": summaries,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=1) + "\n")
    lines = table(summaries, header)
    print("\n".join(lines))
    if args.record:
        RECORDED.parent.mkdir(exist_ok=True)
        RECORDED.write_text(json.dumps(report, indent=1) + "\n")
        text = README.read_text()
        if START in text:
            head, rest = text.split(START, 1)
            tail = rest.split(END, 1)[1]
            README.write_text(f"{head}{START}\n" + "\n".join(lines) + f"\n{END}{tail}")


if __name__ == "__main__":
    main()
