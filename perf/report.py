"""Turn a directory of results into the goal table, the timing tables and charts.

Every ratio compares an implementation with chatcodec, slower over faster, so
it is always at least 1: ``chatcodec / msgspec-plain = 1.9x`` means chatcodec
takes 1.9 times as long; ``pydantic / chatcodec = 14x`` means pydantic does.
Each ratio comes with its spread: the range it takes when both means move by
one standard deviation the unfavourable and the favourable way. A goal is met
only when the whole spread is on the right side of it, missed when the whole
spread is on the wrong side, and "within noise" otherwise.

Usage: python perf/report.py [--results DIR] [--record] [--mode TEXT]
(``perf/run.py`` runs it last.) Without ``--record`` it writes
``DIR/REPORT.md`` and ``DIR/charts/`` and prints the goals; with it, the
results are also published (see ``perf/run.py``).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pyperf

PERF = Path(__file__).resolve().parent
RESULTS = PERF / "results"
RECORDED = PERF / "recorded"
CHARTS = PERF / "charts"
README = PERF / "README.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"
# The project's README shows the goals and the charts; perf/README.md has the rest.
SUMMARY_README = PERF.parent / "README.md"
SUMMARY_START, SUMMARY_END = "<!-- perf-summary:start -->", "<!-- perf-summary:end -->"
BASELINE = "chatcodec"
# Result files that are not pyperf suites: counted sizes, the run's environment, and
# bench_bulk.py's throughput table (a run by hand, not part of make bench).
NOT_PYPERF = frozenset({"memory.json", "environment.json", "bulk.json", "distribution.json"})
PACKAGES = (
    *("msgspec", "pydantic", "orjson", "pyperf"),
    *("openai", "anthropic", "google-genai", "ollama", "botocore", "cohere"),
    *("langchain-core", "jiter", "martian-linguafranca", "llm-babel"),
)


@dataclass(frozen=True)
class Goal:
    """chatcodec's time over ``peer``'s at most ``target`` ("at most"), or the
    peer's over chatcodec's at least ``target`` ("at least")."""

    case: str
    peer: str
    bound: str
    target: float


GOALS = [
    Goal("construct/user", "empty-post-init", "at most", 1.25),
    Goal("construct/user", "pydantic", "at least", 10.0),
    Goal("construct/user-factory", "UserMessage", "at most", 1.15),
    Goal("construct/assistant", "empty-post-init", "at most", 1.3),
    Goal("construct/assistant", "pydantic", "at least", 10.0),
    *(
        goal
        for family, sdk, times_faster in (
            ("openai", "openai-sdk", 3.0),
            ("anthropic", "anthropic-sdk", 3.0),
            ("gemini", "google-genai", 3.0),
            ("ollama", "ollama-sdk", 2.0),
            ("bedrock", "botocore", 3.0),
        )
        for goal in (
            Goal(f"decode/{family}-response", "typed-wire", "at most", 2.0),
            Goal(f"decode/{family}-response", sdk, "at least", times_faster),
        )
    ),
    Goal("encode/transcript20", "orjson", "at most", 1.3),
    *(
        goal
        for size in ("small", "medium", "large")
        for goal in (
            Goal(f"convert/openai-to-anthropic-{size}", "linguafranca", "at most", 1.0),
            Goal(f"convert/openai-to-anthropic-{size}", "llm-babel", "at least", 3.0),
        )
    ),
    Goal("convert/openai-to-anthropic-medium", "orjson-floor", "at most", 3.0),
    Goal("convert/openai-to-gemini-medium", "orjson-floor", "at most", 3.0),
    Goal("stream/openai-200", "msgspec-floor", "at most", 1.5),
    Goal("stream/openai-200", "openai-sdk", "at least", 60.0),
    Goal("translate/anthropic-corpus", "decode-alone", "at most", 2.0),
    Goal("stream/preview-every-fragment", "jiter", "at most", 1.5),
    Goal("stream/preview-4kb", "jiter", "at most", 1.0),
]
MEMORY_GOAL, TOOL_MESSAGE_GOAL = 64, 72

Cases = dict[str, dict[str, Any]]  # case -> implementation -> pyperf.Benchmark


def load(results: Path) -> tuple[Cases, dict[str, Any] | None]:
    cases: Cases = {}
    memory = None
    for path in sorted(results.glob("*.json")):
        if path.name == "memory.json":
            memory = json.loads(path.read_text())
            continue
        if path.name in NOT_PYPERF:
            continue
        for bench in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks():
            case, _, implementation = bench.get_name().rpartition("/")
            cases.setdefault(case, {})[implementation] = bench
    return cases, memory


def times(value: float) -> str:
    # Two decimals near the goals (1.2x, 1.5x), so a rounded 1.5x never hides 1.52x.
    return f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


@dataclass(frozen=True)
class Ratio:
    """One time over another, with the range one standard deviation each way gives."""

    value: float
    low: float
    high: float

    @classmethod
    def of(cls, top: Any, bottom: Any) -> Ratio:
        t, ts, b, bs = top.mean(), top.stdev(), bottom.mean(), bottom.stdev()
        high = (t + ts) / (b - bs) if b > bs else float("inf")
        return cls(t / b, max(t - ts, 0.0) / (b + bs), high)

    def text(self) -> str:
        high = times(self.high) if self.high != float("inf") else "∞"
        return f"{times(self.value)} ({times(self.low)} to {high})"


def described(name: str, bench: Any, base_name: str, base: Any) -> str:
    """``slower / faster = ratio (spread)``."""
    if bench.mean() >= base.mean():
        return f"{name} / {base_name} = {Ratio.of(bench, base).text()}"
    return f"{base_name} / {name} = {Ratio.of(base, bench).text()}"


def verdict(goal: Goal, benches: dict[str, Any]) -> tuple[str, str]:
    ours, peer = benches[BASELINE], benches[goal.peer]
    if goal.bound == "at most":
        ratio = Ratio.of(ours, peer)
        text = f"chatcodec / {goal.peer} = {ratio.text()}"
        met = ratio.high <= goal.target
        missed = ratio.low > goal.target
    else:
        ratio = Ratio.of(peer, ours)
        text = f"{goal.peer} / chatcodec = {ratio.text()}"
        met = ratio.low >= goal.target
        missed = ratio.high < goal.target
    return text, "yes" if met else "**no**" if missed else "within noise"


def goal_rows(cases: Cases, memory: dict[str, Any] | None) -> list[str]:
    lines = ["| Goal | Measured (spread) | Met |", "|---|---|---|"]
    for goal in GOALS:
        benches = cases.get(goal.case, {})
        if goal.bound == "at most":
            said = f"{goal.case}: chatcodec at most {goal.target:g}x {goal.peer}"
        else:
            said = f"{goal.case}: chatcodec at least {goal.target:g}x faster than {goal.peer}"
        if BASELINE not in benches or goal.peer not in benches:
            lines.append(f"| {said} | not measured | |")
            continue
        text, met = verdict(goal, benches)
        lines.append(f"| {said} | {text} | {met} |")
    if memory is not None:
        sizes = {name: size["object"] for name, size in memory["sizes"].items()}
        others = max(size for name, size in sizes.items() if name != "ToolMessage")
        tool = sizes.get("ToolMessage", 0)
        lines.append(
            f"| memory: every message object at most {MEMORY_GOAL} bytes without its strings "
            f"| largest {others} bytes | {'yes' if others <= MEMORY_GOAL else '**no**'} |"
        )
        lines.append(
            f"| memory: `ToolMessage` at most {TOOL_MESSAGE_GOAL} bytes | {tool} bytes "
            f"| {'yes' if tool <= TOOL_MESSAGE_GOAL else '**no**'} |"
        )
    return lines


def timing_table(cases: Cases) -> list[str]:
    lines = ["| Scenario | Implementation | Mean ± std dev | Ratio (spread) |", "|---|---|---|---|"]
    for case, benches in cases.items():
        # The floor cases have no chatcodec row: their first timer is the base.
        base_name = BASELINE if BASELINE in benches else next(iter(benches))
        base = benches[base_name]
        for name, bench in benches.items():
            mean = bench.mean()
            spread = f"{bench.format_value(mean)} ± {bench.format_value(bench.stdev())}"
            text = "baseline" if name == base_name else described(name, bench, base_name, base)
            lines.append(f"| {case} | {name} | {spread} | {text} |")
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
        if name == BASELINE:
            text = "baseline"
        elif size >= base:
            text = f"{name} / {BASELINE} = {times(size / base)}"
        else:
            text = f"{BASELINE} / {name} = {times(base / size)}"
        lines.append(f"| {name} | {size} | {text} |")
    return lines


def installed(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def environment(cases: Cases, mode: str) -> dict[str, Any]:
    """The machine, Python and package versions a run was made with."""
    benches = [bench for benches in cases.values() for bench in benches.values()]
    meta = benches[0].get_metadata() if benches else {}
    runs = sorted(
        {
            (bench.get_nvalue(), sum(1 for run in bench.get_runs() if run.values))
            for bench in benches
        }
    )
    return {
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "packages": {package: installed(package) for package in PACKAGES},
        "cpu": f"{meta.get('cpu_model_name', 'CPU')}, {meta.get('cpu_count')} cores",
        "timings": "; ".join(f"{v} values from {p} worker processes" for v, p in runs),
        "command": mode,
    }


def environment_lines(env: dict[str, Any]) -> list[str]:
    packages = ", ".join(f"{name} {v}" for name, v in env["packages"].items())
    return [
        f"- Python {env['python']}, {packages}",
        f"- {env['cpu']}",
        f"- Each timing: {env['timings']}",
        f"- Produced by `{env['command']}`",
    ]


def colour(name: str) -> str:
    if name == BASELINE:
        return "#d62728"
    if "floor" in name or name in ("typed-wire", "empty-post-init", "msgspec-plain", "orjson"):
        return "#7f7f7f"
    return "#1f77b4"


def draw(cases: Cases, folder: Path) -> list[Path]:
    """One PNG per scenario (construct, decode, convert...), a panel per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    folder.mkdir(parents=True, exist_ok=True)
    groups: dict[str, list[str]] = {}
    for case in cases:
        groups.setdefault(case.split("/")[0], []).append(case)
    written = []
    for group, names in groups.items():
        height = sum(len(cases[case]) for case in names) * 0.32 + len(names) * 0.7 + 0.6
        fig, axes = plt.subplots(
            len(names),
            1,
            figsize=(7.5, height),
            gridspec_kw={"height_ratios": [len(cases[case]) for case in names]},
            squeeze=False,
        )
        for axis, case in zip(axes[:, 0], names, strict=True):
            benches = cases[case]
            labels = list(benches)[::-1]
            means = [benches[name].mean() * 1e6 for name in labels]
            errors = [benches[name].stdev() * 1e6 for name in labels]
            axis.barh(
                labels, means, xerr=errors, color=[colour(name) for name in labels], capsize=2
            )
            if max(means) / min(means) > 20:
                axis.set_xscale("log")
                axis.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
                axis.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
                axis.xaxis.set_minor_formatter(NullFormatter())
            for y, (name, mean, error) in enumerate(zip(labels, means, errors, strict=True)):
                axis.annotate(
                    benches[name].format_value(mean / 1e6),
                    (mean + error, y),
                    xytext=(4, -3),
                    textcoords="offset points",
                    fontsize=7,
                )
            axis.set_xlim(right=max(m + e for m, e in zip(means, errors, strict=True)) * 1.6)
            axis.set_title(case, fontsize=9, loc="left")
            axis.tick_params(labelsize=8)
            axis.set_xlabel("µs (mean ± std dev; red: chatcodec, grey: floors)", fontsize=7)
        fig.tight_layout()
        path = folder / f"{group}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def replace_section(path: Path, start: str, end: str, body: str) -> None:
    text = path.read_text()
    head, found_start, rest = text.partition(start)
    _, found_end, tail = rest.partition(end)
    if not found_start or not found_end:
        raise SystemExit(f"{path} has no {start} ... {end} section")
    path.write_text(f"{head}{start}\n{body}\n{end}{tail}")


def full_report(cases: Cases, memory: dict[str, Any] | None, env: dict[str, Any]) -> str:
    lines = [*environment_lines(env), "", "### Goals", "", *goal_rows(cases, memory)]
    lines += ["", "### Timings", "", *timing_table(cases)]
    if memory is not None:
        lines += ["", "### Memory", "", *memory_tables(memory)]
    return "\n".join(lines)


def summary(
    cases: Cases, memory: dict[str, Any] | None, env: dict[str, Any], charts: list[Path]
) -> str:
    lines = [*environment_lines(env), "", *goal_rows(cases, memory), ""]
    for chart in charts:
        lines.append(f"![{chart.stem}](perf/charts/{chart.name})")
    lines += ["", "Every timing, the memory tables and why goals are missed: `perf/README.md`."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--mode", default="make bench", help="the command the run was")
    args = parser.parse_args()
    cases, memory = load(args.results)
    env = environment(cases, args.mode)
    (args.results / "environment.json").write_text(json.dumps(env, indent=2) + "\n")
    charts = draw(cases, args.results / "charts")
    body = full_report(cases, memory, env)
    (args.results / "REPORT.md").write_text(body + "\n")
    if args.record:
        RECORDED.mkdir(exist_ok=True)
        for path in args.results.glob("*.json"):
            if path.name != "bulk.json":  # bench_bulk.py records its own run
                shutil.copy(path, RECORDED / path.name)
        CHARTS.mkdir(exist_ok=True)
        published = [Path(shutil.copy(chart, CHARTS / chart.name)) for chart in charts]
        replace_section(README, START, END, body)
        replace_section(
            SUMMARY_README, SUMMARY_START, SUMMARY_END, summary(cases, memory, env, published)
        )
    print("\n".join(goal_rows(cases, memory)))
    print(f"\nEvery table: {args.results / 'REPORT.md'}; charts: {args.results / 'charts'}")


if __name__ == "__main__":
    main()
