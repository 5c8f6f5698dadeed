"""Summarise ``perf/results/*.json`` into the results section of ``perf/README.md``.

Every ratio compares an implementation with chatcodec, slower over faster, so
it is always at least 1: ``chatcodec / msgspec-plain = 1.9x`` means chatcodec
takes 1.9 times as long; ``pydantic / chatcodec = 14x`` means pydantic does.

Usage: python perf/report.py  (``perf/run.py`` runs it last; by hand, set
``BENCH_FAST=1`` as for the run, so the report names the right command)
"""

from __future__ import annotations

import json
import os
import platform
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pyperf

PERF = Path(__file__).resolve().parent
RESULTS = PERF / "results"
README = PERF / "README.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"
# The project's README shows the goals table; perf/README.md has the rest.
SUMMARY_README = PERF.parent / "README.md"
SUMMARY_START, SUMMARY_END = "<!-- perf-summary:start -->", "<!-- perf-summary:end -->"
BASELINE = "chatcodec"

# (case, peer, bound, target).  "at most": chatcodec takes at most ``target``
# times as long as the peer.  "at least": the peer takes at least ``target``
# times as long as chatcodec.
GOALS: list[tuple[str, str, str, float]] = [
    ("construct/user", "msgspec-plain", "at most", 1.5),
    ("construct/user", "pydantic", "at least", 10.0),
    ("construct/assistant", "msgspec-plain", "at most", 1.5),
    ("construct/assistant", "pydantic", "at least", 15.0),
    ("decode/transcript20", "orjson", "at most", 1.5),
    ("encode/transcript20", "orjson", "at most", 1.2),
    ("decode/openai-response", "openai-sdk", "at least", 4.0),
    ("decode/openai-response", "orjson", "at most", 1.5),
    ("decode/anthropic-response", "anthropic-sdk", "at least", 4.0),
    ("decode/anthropic-response", "orjson", "at most", 1.5),
    ("decode/gemini-response", "google-genai", "at least", 4.0),
    ("decode/gemini-response", "orjson", "at most", 1.5),
    ("decode/ollama-response", "ollama-sdk", "at least", 4.0),
    ("decode/ollama-response", "orjson", "at most", 1.5),
    ("convert/openai-to-anthropic-20", "canonical", "at most", 3.0),
    ("convert/openai-to-gemini-20", "canonical", "at most", 3.0),
    ("stream/openai-200", "msgspec-floor", "at most", 1.3),
    ("stream/openai-200", "openai-sdk", "at least", 100.0),
    ("stream/preview-every-fragment", "jiter", "at most", 1.0),
    ("stream/preview-4kb", "jiter", "at most", 1.0),
]

Cases = dict[str, dict[str, Any]]  # case -> implementation -> pyperf.Benchmark


def load() -> tuple[Cases, dict[str, Any] | None]:
    cases: Cases = {}
    memory = None
    for path in sorted(RESULTS.glob("*.json")):
        if path.name == "memory.json":
            memory = json.loads(path.read_text())
            continue
        for bench in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks():
            case, _, implementation = bench.get_name().rpartition("/")
            cases.setdefault(case, {})[implementation] = bench
    return cases, memory


def times(value: float) -> str:
    # Two decimals near the goals (1.2x, 1.5x), so a rounded 1.5x never hides 1.52x.
    return f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


def ratio(peer: str, peer_mean: float, base_mean: float, base: str = BASELINE) -> tuple[str, float]:
    """The ratio as text, and the baseline's mean over the peer's."""
    if peer_mean >= base_mean:
        return f"{peer} / {base} = {times(peer_mean / base_mean)}", base_mean / peer_mean
    return f"{base} / {peer} = {times(base_mean / peer_mean)}", base_mean / peer_mean


def timing_table(cases: Cases) -> list[str]:
    lines = ["| Scenario | Implementation | Mean ± std dev | Ratio |", "|---|---|---|---|"]
    for case, benches in cases.items():
        # The floor cases have no chatcodec row: their first timer is the base.
        base_name = BASELINE if BASELINE in benches else next(iter(benches))
        base = benches[base_name].mean()
        for name, bench in benches.items():
            mean = bench.mean()
            spread = f"{bench.format_value(mean)} ± {bench.format_value(bench.stdev())}"
            text = "baseline" if name == base_name else ratio(name, mean, base, base_name)[0]
            lines.append(f"| {case} | {name} | {spread} | {text} |")
    return lines


def goal_rows(cases: Cases, memory: dict[str, Any] | None) -> list[str]:
    lines = ["| Goal | Measured | Met |", "|---|---|---|"]
    for case, peer, bound, target in GOALS:
        benches = cases.get(case, {})
        if BASELINE not in benches or peer not in benches:
            lines.append(f"| {case}: not measured | | |")
            continue
        text, base_over_peer = ratio(peer, benches[peer].mean(), benches[BASELINE].mean())
        if bound == "at most":
            goal = f"{case}: chatcodec at most {target:g}x {peer}"
            met = base_over_peer <= target
        else:
            goal = f"{case}: chatcodec at least {target:g}x faster than {peer}"
            met = 1 / base_over_peer >= target
        lines.append(f"| {goal} | {text} | {'yes' if met else '**no**'} |")
    if memory is not None:
        largest = max(size["object"] for size in memory["sizes"].values())
        met = largest <= memory["goal_bytes"]
        lines.append(
            f"| memory: every message object at most {memory['goal_bytes']} bytes "
            f"without its strings | largest {largest} bytes | {'yes' if met else '**no**'} |"
        )
    return lines


def memory_tables(memory: dict[str, Any]) -> list[str]:
    lines = [
        "| Object | Bytes, object alone | Bytes, with what it owns (no text) |",
        "|---|---|---|",
    ]
    for name, size in memory["sizes"].items():
        lines.append(f"| {name} | {size['object']} | {size['tree']} |")
    per_message = memory["decoded_bytes_per_message"]
    base = per_message[BASELINE]
    lines += [
        "",
        f"Allocated by one decode of the {memory['messages']}-message transcript "
        "(tracemalloc, text included), per message:",
        "",
        "| Implementation | Bytes per message | Ratio |",
        "|---|---|---|",
    ]
    for name, size in per_message.items():
        text = "baseline" if name == BASELINE else ratio(name, size, base)[0]
        lines.append(f"| {name} | {size} | {text} |")
    return lines


def environment(cases: Cases) -> list[str]:
    versions = ", ".join(
        f"{package} {version(package)}"
        for package in (
            *("msgspec", "pydantic", "orjson", "pyperf"),
            *("openai", "anthropic", "google-genai", "ollama"),
            *("langchain-core", "jiter"),
        )
    )
    lines = [
        f"- Python {platform.python_version()} ({platform.python_implementation()}), {versions}"
    ]
    benches = [bench for benches in cases.values() for bench in benches.values()]
    if benches:
        meta = benches[0].get_metadata()
        lines.append(f"- {meta.get('cpu_model_name', 'CPU')}, {meta.get('cpu_count')} cores")
        runs = {
            (bench.get_nvalue(), sum(1 for run in bench.get_runs() if run.values))
            for bench in benches
        }
        described = "; ".join(f"{v} values from {p} worker processes" for v, p in sorted(runs))
        lines.append(f"- Each timing: {described}")
    command = "BENCH_FAST=1 make bench" if os.environ.get("BENCH_FAST") == "1" else "make bench"
    lines.append(f"- Produced by `{command}`")
    return lines


def section(cases: Cases, memory: dict[str, Any] | None) -> str:
    lines = [*environment(cases), "", "### Goals", "", *goal_rows(cases, memory)]
    lines += ["", "### Timings", "", *timing_table(cases)]
    if memory is not None:
        lines += ["", "### Memory", "", *memory_tables(memory)]
    return "\n".join(lines)


def replace_section(path: Path, start: str, end: str, body: str) -> None:
    text = path.read_text()
    head, found_start, rest = text.partition(start)
    _, found_end, tail = rest.partition(end)
    if not found_start or not found_end:
        raise SystemExit(f"{path} has no {start} ... {end} section")
    path.write_text(f"{head}{start}\n{body}\n{end}{tail}")


def summary(cases: Cases, memory: dict[str, Any] | None) -> str:
    lines = [*environment(cases), "", *goal_rows(cases, memory), ""]
    lines.append("Every timing, the memory tables and why goals are missed: `perf/README.md`.")
    return "\n".join(lines)


def main() -> None:
    cases, memory = load()
    body = section(cases, memory)
    replace_section(README, START, END, body)
    replace_section(SUMMARY_README, SUMMARY_START, SUMMARY_END, summary(cases, memory))
    print(body)


if __name__ == "__main__":
    main()
