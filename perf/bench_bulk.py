"""Bulk conversion: MB/s and peak RSS converting a large JSONL from OpenAI to Anthropic.

The input repeats the 300 real fine-tuning requests of ``tests/data/bulk`` until
it holds ``--mb`` megabytes (200 by default). Measured, one pass each, in one run:

- the floor: ``orjson.loads`` then ``orjson.dumps`` of each line, no conversion;
- ``convert_lines`` over the same lines in this process (the pure function alone);
- ``chatcodec convert --jobs 1`` and ``--jobs 2``, the whole command with its file
  reading and writing, timed whole and as it times itself (``--summary-json``:
  the run, after the interpreter's start and the imports); peak RSS summed over
  the command and its workers, in a run of its own;
- the peers as a plain per-line loop in this process: martian-linguafranca's Rust
  core (``convert_request_json_str``, text in and out) and llm-babel
  (``registry.translate``), from ``convert_scenarios.py``. Each peer's answer is
  first compared with chatcodec's on the 300 distinct requests (the conversation
  each holds, read back with chatcodec's Anthropic decoder); the table says on how
  many it agreed. A line a peer raises on is counted, not fatal;
- litellm's ``AnthropicConfig`` (``map_openai_params`` then ``transform_request``)
  the same way, run by ``peer_litellm.py`` in a virtual environment of its own
  (``perf/.peers/litellm``, made on first use with ``pip``; litellm pins an
  older openai SDK than the provider tests). Its loop reads and writes JSON with
  the standard library, as litellm does; it is timed in that process, after the
  import. Without the registry (no venv can be made), its row is left out.

Peak RSS is measured once more on the input repeated five times (1 GB by
default), with one and two jobs: memory is bounded by the chunks in flight, not
by the input's size.

What two processes can give on the machine at all is measured in the same run:
one process of a pure-Python loop against two at once (throughput ratio), the
ceiling for ``--jobs 2`` against ``--jobs 1`` (a shared or busy host gives less
than 2x).

Before timing anything it checks that the two command runs give the same bytes
and that every line was converted. Each case runs ``--repeat`` times (3 by
default); the table gives the median and the spread (slowest to fastest run).
Results go to ``perf/results/bulk.json`` and a chart to ``perf/results/bulk.png``;
with ``--record``, to ``perf/recorded/`` and ``perf/charts/bulk.png``, and the
table between the ``bulk`` markers of ``perf/README.md``.

Usage: python perf/bench_bulk.py [--mb 200] [--repeat 3] [--record]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import psutil

import chatcodec as cc
from convert_scenarios import babel_converter, conversation, linguafranca_converter

CLAUDE: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 1024}

PERF = Path(__file__).resolve().parent
SOURCE = PERF.parent / "tests" / "data" / "bulk" / "openai-finetune.jsonl"
RESULTS = PERF / "results" / "bulk.json"
RECORDED = PERF / "recorded"
README = PERF / "README.md"
CHARTS = PERF / "charts"
START, END = "<!-- bulk:start -->", "<!-- bulk:end -->"
GOAL = 0.35  # of the floor's throughput, in one process


def build(path: Path, megabytes: int) -> int:
    data = SOURCE.read_bytes()
    written = 0
    with path.open("wb") as f:
        while written < megabytes * 1_000_000:
            f.write(data)
            written += len(data)
    return written


FLOOR = "floor: orjson.loads + orjson.dumps per line"


def floor(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as f:
        for line in f:
            orjson.dumps(orjson.loads(line))
    return time.perf_counter() - start


def pure(path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    converted = 0
    with path.open("rb") as f:
        chunk: list[bytes] = []
        for line in f:
            chunk.append(line)
            if len(chunk) == 5000:
                result = cc.convert_lines(
                    chunk, source="openai", target="anthropic", kind="request", **CLAUDE
                )
                converted += result.converted + result.lossy
                chunk = []
        result = cc.convert_lines(
            chunk, source="openai", target="anthropic", kind="request", **CLAUDE
        )
        converted += result.converted + result.lossy
    return time.perf_counter() - start, converted


_linguafranca = linguafranca_converter("anthropic_messages")


def _linguafranca_with_model(line: bytes) -> bytes | str:
    # Fine-tuning records have no model, and linguafranca refuses a request without
    # one; llm-babel is given one the same way (``model=`` in convert_scenarios).
    return _linguafranca(b'{"model":"m",' + line.lstrip()[1:])


PEERS = {
    "martian-linguafranca (Rust core), per line": _linguafranca_with_model,
    "llm-babel, per line": babel_converter("anthropic-messages"),
}


def agreement(convert: Any) -> int:
    """On how many of the distinct requests a peer holds chatcodec's conversation."""
    same = 0
    for line in SOURCE.read_bytes().splitlines():
        ours = cc.convert(line, source="openai", target="anthropic", **CLAUDE)[0]
        try:
            same += conversation("anthropic", convert(line)) == conversation("anthropic", ours)
        except Exception:  # a peer's failure is counted as disagreement
            continue
    return same


LITELLM = "litellm's AnthropicConfig, per line"
LITELLM_VERSION = "litellm==1.106.2"
PEERS_DIR = PERF / ".peers"


def litellm_python() -> Path | None:
    """The Python of litellm's own virtual environment, made on first use."""
    venv = PEERS_DIR / "litellm"
    python = venv / "bin" / "python"
    if python.exists():
        return python
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], check=False)
    if made.returncode == 0:
        pip = [str(python), "-m", "pip", "install", "-q", LITELLM_VERSION]
        if subprocess.run(pip, check=False).returncode == 0:
            return python
    print("litellm could not be installed: its row is left out", file=sys.stderr)
    return None


def litellm_loop(python: Path, path: Path, tmp: Path) -> tuple[float, int, list[Any], str]:
    """Seconds, failed lines, its body for each distinct request, its version."""
    out = tmp / "litellm.jsonl"
    done = subprocess.run(
        [str(python), str(PERF / "peer_litellm.py"), str(path), str(SOURCE), str(out)],
        capture_output=True,
        check=True,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    bodies = [json.loads(line) for line in out.read_bytes().splitlines()]
    return report["seconds"], report["failed"], bodies, report["version"]


def litellm_agreement(bodies: list[Any]) -> int:
    same = 0
    for line, body in zip(SOURCE.read_bytes().splitlines(), bodies, strict=True):
        if body is None:
            continue
        ours = cc.convert(line, source="openai", target="anthropic", **CLAUDE)[0]
        try:
            theirs = conversation("anthropic", json.dumps(body).encode())
        except Exception:  # what chatcodec cannot read back counts as disagreement
            continue
        same += theirs == conversation("anthropic", ours)
    return same


def peer(path: Path, convert: Any) -> tuple[float, int]:
    failed = 0
    start = time.perf_counter()
    with path.open("rb") as f:
        for line in f:
            try:
                convert(line)
            except Exception:  # counted: the loop goes on, as a user's would
                failed += 1
    return time.perf_counter() - start, failed


def _argv(path: Path, out: Path, jobs: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "chatcodec",
        "convert",
        "--from",
        "openai",
        "--to",
        "anthropic",
        str(path),
        str(out),
        "--jobs",
        str(jobs),
        "--quiet",
        "--max-tokens",
        "1024",
        "--summary-json",
        str(out.with_suffix(".summary.json")),
    ]


def command(path: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Seconds of the whole command, and of the run as it times itself.

    The run's own time leaves out the interpreter's start and the imports
    (about 0.2 s). The output of the previous run is removed first: freeing
    a 200 MB file is the file system's work, not the conversion's.
    """
    out.unlink(missing_ok=True)
    start = time.perf_counter()
    done = subprocess.run(_argv(path, out, jobs), capture_output=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"chatcodec convert --jobs {jobs} exited {done.returncode}")
    own = json.loads(out.with_suffix(".summary.json").read_bytes())["seconds"]
    return seconds, own


def peak_rss(path: Path, out: Path, jobs: int) -> int:
    """Peak RSS in bytes, the command and its workers together, in a run of its own.

    Sampled every 50 ms with psutil: the sampling costs CPU, so this run is
    not one of the timed ones.
    """
    out.unlink(missing_ok=True)
    process = psutil.Popen(
        _argv(path, out, jobs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    while process.poll() is None:
        try:
            tree = [process, *process.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.05)
    if process.returncode != 0:
        raise SystemExit(f"chatcodec convert --jobs {jobs} exited {process.returncode}")
    return peak


SPIN = "x = 0\nfor i in range(30_000_000):\n    x += i\n"


def machine(jobs: int) -> float:
    """Seconds for ``jobs`` processes of the same pure-Python loop, side by side."""
    start = time.perf_counter()
    running = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(jobs)]
    for process in running:
        process.wait()
    return time.perf_counter() - start


def _median(runs: list[float]) -> float:
    return statistics.median(runs)


def draw(report: dict[str, Any], path: Path) -> None:
    """MB/s per case, a bar each (whiskers: slowest to fastest run), goal line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"][::-1]
    labels = [row["case"] for row in rows]
    rates = [row["mb_per_s"] for row in rows]
    low = [row["mb_per_s"] - row["mb_per_s_range"][0] for row in rows]
    high = [row["mb_per_s_range"][1] - row["mb_per_s"] for row in rows]
    colours = [
        "#7f7f7f"
        if "floor" in label
        else "#d62728"
        if "chatcodec" in label or "convert_lines" in label
        else "#1f77b4"
        for label in labels
    ]
    fig, axis = plt.subplots(figsize=(7.5, 0.42 * len(rows) + 1.1))
    axis.barh(labels, rates, xerr=[low, high], color=colours, capsize=2)
    floor_rate = report["rows"][0]["mb_per_s"]
    axis.axvline(GOAL * floor_rate, color="#2ca02c", linestyle="--", linewidth=1)
    axis.annotate(
        f"goal: {GOAL:.0%} of the floor",
        (GOAL * floor_rate, -0.5),
        xytext=(4, 0),
        textcoords="offset points",
        fontsize=7,
        color="#2ca02c",
    )
    for y, (rate, extra) in enumerate(zip(rates, high, strict=True)):
        axis.annotate(
            f"{rate:.1f} MB/s",
            (rate + extra, y),
            xytext=(4, -3),
            textcoords="offset points",
            fontsize=7,
        )
    axis.set_xlim(right=max(r + h for r, h in zip(rates, high, strict=True)) * 1.25)
    axis.set_title(
        f"OpenAI -> Anthropic, {report['input_mb']:.0f} MB of JSONL ({report['cpus']} CPUs)",
        fontsize=9,
        loc="left",
    )
    axis.tick_params(labelsize=8)
    axis.set_xlabel(
        "MB/s, higher is better: median, whiskers from the slowest to the fastest run\n"
        "red: chatcodec, grey: the floor, blue: peers",
        fontsize=7,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case")
    parser.add_argument("--record", action="store_true", help="write the table into README.md")
    args = parser.parse_args()
    runs: dict[str, list[float]] = {}
    rss: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.jsonl"
        size = build(source, args.mb)
        lines = sum(1 for _ in source.open("rb"))
        one, two = Path(tmp) / "one.jsonl", Path(tmp) / "two.jsonl"
        scaling: list[float] = []
        own: dict[int, list[float]] = {1: [], 2: []}
        for jobs, out in ((1, one), (2, two)):
            rss[f"chatcodec convert --jobs {jobs}"] = peak_rss(source, out, jobs)
        for _ in range(args.repeat):
            for jobs, out in ((1, one), (2, two)):
                seconds, itself = command(source, out, jobs)
                runs.setdefault(f"chatcodec convert --jobs {jobs}", []).append(seconds)
                own[jobs].append(itself)
            scaling.append(2 * machine(1) / machine(2))
        if one.read_bytes() != two.read_bytes():
            raise SystemExit("--jobs 1 and --jobs 2 gave different output")
        if sum(1 for _ in one.open("rb")) != lines:
            raise SystemExit("not every line was converted")
        # Memory stays bounded at any size: the same input five times over.
        big = Path(tmp) / "big.jsonl"
        with big.open("wb") as f:
            for _ in range(5):
                with source.open("rb") as part:
                    shutil.copyfileobj(part, f, 1 << 20)
        big_rss = {jobs: peak_rss(big, Path(tmp) / "big-out.jsonl", jobs) for jobs in (1, 2)}
        big.unlink()
        (Path(tmp) / "big-out.jsonl").unlink()
        for _ in range(args.repeat):
            pure_s, converted = pure(source)
            if converted != lines:
                raise SystemExit("convert_lines did not convert every line")
            runs.setdefault("convert_lines, this process", []).append(pure_s)
            runs.setdefault(FLOOR, []).append(floor(source))
        failures: dict[str, int] = {}
        agrees: dict[str, int] = {}
        for name, convert in PEERS.items():
            agrees[name] = agreement(convert)
            for _ in range(args.repeat):
                seconds, failures[name] = peer(source, convert)
                runs.setdefault(name, []).append(seconds)
        python = litellm_python()
        peers = list(PEERS)
        if python is not None:
            peers.append(LITELLM)
            for _ in range(args.repeat):
                seconds, failures[LITELLM], bodies, version = litellm_loop(
                    python, source, Path(tmp)
                )
                runs.setdefault(LITELLM, []).append(seconds)
            agrees[LITELLM] = litellm_agreement(bodies)
    mb = size / 1e6
    order = [
        FLOOR,
        "convert_lines, this process",
        *(f"chatcodec convert --jobs {j}" for j in (1, 2)),
    ]
    floor_s = _median(runs[FLOOR])
    rows: list[dict[str, Any]] = []
    for case in [*order, *peers]:
        seconds = _median(runs[case])
        row: dict[str, Any] = {"case": case, "seconds": seconds, "runs": runs[case]}
        if case in rss:
            row["peak_rss"] = rss[case]
        if case in peers:
            row |= {"failed_lines": failures[case], "agrees_on": agrees[case]}
        if case == LITELLM:
            row["version"] = f"litellm {version}"
        row["mb_per_s"] = mb / seconds
        row["mb_per_s_range"] = [mb / max(runs[case]), mb / min(runs[case])]
        row["of_floor"] = floor_s / seconds
        rows.append(row)
    one_runs, two_runs = runs["chatcodec convert --jobs 1"], runs["chatcodec convert --jobs 2"]
    report = {
        "input_mb": mb,
        "lines": lines,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "repeat": args.repeat,
        "rows": rows,
        "speedup_1_to_2": _median(one_runs) / _median(two_runs),
        "speedup_1_to_2_range": [min(one_runs) / max(two_runs), max(one_runs) / min(two_runs)],
        "run_1_to_2": _median(own[1]) / _median(own[2]),
        "run_1_to_2_range": [min(own[1]) / max(own[2]), max(own[1]) / min(own[2])],
        "peak_rss_5x": {"input_mb": 5 * mb, "jobs_1": big_rss[1], "jobs_2": big_rss[2]},
        "machine_1_to_2": _median(scaling),
        "machine_1_to_2_range": [min(scaling), max(scaling)],
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    draw(report, RESULTS.with_suffix(".png"))
    table = [
        f"OpenAI -> Anthropic, {mb:.0f} MB, {lines:,} lines of real fine-tuning requests; "
        f"{os.cpu_count()} CPUs, Python {report['python']}; median of {args.repeat} runs, "
        "spread from the slowest to the fastest. Produced by `perf/bench_bulk.py`.",
        "",
        "![bulk conversion throughput](charts/bulk.png)",
        "",
        "| case | MB/s | of the floor | peak RSS | notes |",
        "|---|---|---|---|---|",
    ]
    distinct = len(SOURCE.read_bytes().splitlines())
    for row in rows:
        rss_text = f"{row['peak_rss'] / 1e6:.0f} MB" if "peak_rss" in row else "-"
        notes = ""
        if "agrees_on" in row:
            notes = f"chatcodec's conversation on {row['agrees_on']} of {distinct} requests"
            notes += f"; raised on {row['failed_lines']:,} lines" if row["failed_lines"] else ""
            notes += f"; {row['version']}" if "version" in row else ""
        low, high = row["mb_per_s_range"]
        table.append(
            f"| {row['case']} | {row['mb_per_s']:.1f} [{low:.1f}-{high:.1f}] "
            f"| {row['of_floor'] * 100:.0f} % | {rss_text} | {notes} |"
        )
    low, high = report["speedup_1_to_2_range"]
    table.append("")
    ceiling, (c_low, c_high) = report["machine_1_to_2"], report["machine_1_to_2_range"]
    run, (r_low, r_high) = report["run_1_to_2"], report["run_1_to_2_range"]
    table.append(
        f"From 1 to 2 processes: {report['speedup_1_to_2']:.2f}x [{low:.2f}-{high:.2f}] "
        f"for the whole command, {run:.2f}x [{r_low:.2f}-{r_high:.2f}] for the run as the "
        "command times itself (after the interpreter's start and the imports). "
        f"The machine's own ceiling in the same run (two processes of a pure-Python loop "
        f"against one, throughput): {ceiling:.2f}x [{c_low:.2f}-{c_high:.2f}]."
    )
    table.append("")
    table.append(
        f"Peak RSS converting the same input five times over ({5 * mb:.0f} MB): "
        f"{big_rss[1] / 1e6:.0f} MB with `--jobs 1`, {big_rss[2] / 1e6:.0f} MB with `--jobs 2`."
    )
    text = README.read_text()
    if args.record:
        RECORDED.mkdir(exist_ok=True)
        RECORDED.joinpath("bulk.json").write_text(RESULTS.read_text())
        CHARTS.mkdir(exist_ok=True)
        draw(report, CHARTS / "bulk.png")
    if args.record and START in text:
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1]
        README.write_text(f"{head}{START}\n" + "\n".join(table) + f"\n{END}{tail}")
    print("\n".join(table))


if __name__ == "__main__":
    main()
