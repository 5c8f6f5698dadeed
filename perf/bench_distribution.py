"""Every recorded request of every family converted to every other family: the distribution.

Three chosen requests say little about conversion: the usual OpenAI Chat request
takes a direct path, anything else the general one. This script converts every
recorded request of the corpus (``../shared/corpus``, or ``CHATCODEC_CORPUS``;
files chosen by the MANIFEST's ``api`` column) from its family to each of the
five others and times, per request, interleaved and best of ``--repeat``:

- ``chatcodec``: ``convert(body, source=..., target=..., model=..., max_tokens=1024)``
  with its preflight, bytes in and out (the target's model is passed, as a caller
  converting for that provider would);
- ``floor``: ``orjson.dumps(orjson.loads(body))`` of the same source bytes, the least
  any converter written in Python over a C JSON library can cost;
- ``linguafranca``: martian-linguafranca's Rust core, ``convert_request_json_str``,
  text in and out, on the six pairs of the three families it has (OpenAI Chat,
  Anthropic, Responses). A request it raises on is counted and left out of its
  ratios.

Per pair it reports how many requests were converted (a request chatcodec refuses,
as malformed for its family, is counted apart), the median, p90 and total
(sum over sum) of chatcodec's time over the floor's and over linguafranca's, how
many requests chatcodec converts faster than linguafranca, how many took the
direct path, and on how many linguafranca's answer holds chatcodec's conversation
(read back with chatcodec's decoder for the target).

A family the corpus has no request of (Cohere, today) is a source through the
curated request bodies of the tests (``tests/data/providers/<family>/request``,
built from its documentation), marked as such in the table, until the corpus has
some.

Before timing, the floor is checked to give the body back and chatcodec's
output to decode as the target. Without the corpus the script says so and
exits 0: the rest of the suite runs without it.

Results go to ``perf/results/distribution.json`` and a chart to
``perf/results/charts/distribution.png``; with ``--record``, the summaries and
each request's ratios to ``perf/recorded/distribution.json``, the chart to
``perf/charts/`` and the table between the ``distribution`` markers of
``perf/README.md``.

Usage: python perf/bench_distribution.py [--quick] [--record] [--pair openai:anthropic ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

import chatcodec as cc
from chatcodec import providers
from chatcodec.providers._direct import direct_request

PERF = Path(__file__).resolve().parent
CORPUS = Path(
    os.environ.get("CHATCODEC_CORPUS") or PERF.parent.parent / "shared" / "corpus"
).resolve()
RESULTS = PERF / "results" / "distribution.json"
RESULT_CHART = PERF / "results" / "charts" / "distribution.png"
RECORDED = PERF / "recorded" / "distribution.json"
CHART = PERF / "charts" / "distribution.png"
README = PERF / "README.md"
START, END = "<!-- distribution:start -->", "<!-- distribution:end -->"

FAMILIES = providers.NAMES
API = {
    "openai": "openai-chat",
    "ollama": "ollama-chat",
    "anthropic": "anthropic-messages",
    "gemini": "gemini-generateContent",
    "openai-responses": "openai-responses",
    "bedrock": "bedrock-converse",
    "cohere": "cohere-chat",  # none recorded yet: its curated bodies stand in
}
CURATED = PERF.parent / "tests" / "data" / "providers"
LABEL = {
    "openai": "OpenAI Chat",
    "ollama": "Ollama",
    "anthropic": "Anthropic",
    "gemini": "Gemini",
    "openai-responses": "Responses",
    "bedrock": "Bedrock",
    "cohere": "Cohere",
}
# The target's model a caller passes (Anthropic's preflight refuses another provider's).
MODELS = {
    "openai": "gpt-4o",
    "ollama": "llama3.1",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "openai-responses": "gpt-4o",
    "bedrock": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "cohere": "command-a-03-2025",
}
MAX_TOKENS = 1024
LINGUAFRANCA = {
    "openai": "openai_chat_completions",
    "anthropic": "anthropic_messages",
    "openai-responses": "open_responses",
}
GOAL_FLOOR_MEDIAN = 6.0  # every pair: median at most 6x the floor
GOAL_PEER_TOTAL, GOAL_PEER_P90 = 1.0, 1.5  # linguafranca's pairs: total and p90

Call = Callable[[bytes], object]


def recorded_requests(root: Path) -> dict[str, list[tuple[str, bytes]]]:
    """Each family's recorded request bodies, by path, in MANIFEST order."""
    with (root / "MANIFEST.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    family = {api: name for name, api in API.items()}
    out: dict[str, list[tuple[str, bytes]]] = {name: [] for name in FAMILIES}
    for row in rows:
        if row["kind"] == "request" and row["api"] in family:
            out[family[row["api"]]].append((row["path"], (root / row["path"]).read_bytes()))
    for name, bodies in out.items():
        if not bodies:
            bodies += curated_requests(name)
    return out


def curated_requests(name: str) -> list[tuple[str, bytes]]:
    """The tests' curated request bodies of a family, by path from the repository's root."""
    folder = CURATED / name / "request"
    return [
        (path.relative_to(PERF.parent).as_posix(), path.read_bytes())
        for path in sorted(folder.glob("*.json"))
    ]


def floor(body: bytes) -> object:
    return orjson.dumps(orjson.loads(body))


def linguafranca_call(source: str, target: str) -> Call | None:
    if source not in LINGUAFRANCA or target not in LINGUAFRANCA:
        return None
    import linguafranca._linguafranca as core

    convert = core.convert_request_json_str
    ours, theirs = LINGUAFRANCA[source], LINGUAFRANCA[target]

    def call(body: bytes) -> object:
        # The core takes and gives text; a caller holding bytes decodes them first.
        return convert(body.decode(), ours, theirs, None)

    return call


def conversation(target: str, body: bytes | str) -> list[tuple[Any, ...]] | None:
    """What a request says, in terms every converter shares; None if it does not decode."""
    data = body.encode() if isinstance(body, str) else body
    if data.startswith(b'{"value"'):  # linguafranca's envelope
        data = orjson.dumps(orjson.loads(data)["value"])
    try:
        request = providers.get(target).decode_request(data)
    except cc.ChatCodecError:
        return None
    out: list[tuple[Any, ...]] = []
    for message in request.messages:
        if isinstance(message, cc.SystemMessage | cc.DeveloperMessage):
            out.append(("system", message.content))
        elif isinstance(message, cc.UserMessage):
            out.append(("user", message.text))
        elif isinstance(message, cc.AssistantMessage):
            if message.text:
                out.append(("assistant", message.text))
            for c in message.tool_calls:
                out.append(("call", c.id, c.name, c.arguments_dict()))
        else:
            out.append(("result", message.tool_call_id, message.text))
    return out


def per_call(call: Call, body: bytes, loops: int) -> float:
    """Seconds per call, over ``loops`` calls."""
    clock = time.perf_counter
    start = clock()
    for _ in range(loops):
        call(body)
    return (clock() - start) / loops


def measure_pair(
    source: str,
    target: str,
    bodies: list[tuple[str, bytes]],
    repeat: int,
    budget: float,
) -> dict[str, Any]:
    """Every body of ``source`` converted to ``target``: one row per request, and the counts."""
    ours: Call = partial(
        cc.convert, source=source, target=target, model=MODELS[target], max_tokens=MAX_TOKENS
    )
    peer = linguafranca_call(source, target)
    rows: list[dict[str, Any]] = []
    refused = peer_raised = agrees = 0
    for path, body in bodies:
        try:
            out, _ = cc.convert(
                body, source=source, target=target, model=MODELS[target], max_tokens=MAX_TOKENS
            )
        except cc.ChatCodecError:
            refused += 1
            continue
        if conversation(target, out) is None:
            raise SystemExit(f"{source} -> {target}: chatcodec's output of {path} does not decode")
        if orjson.loads(floor(body)) != orjson.loads(body):  # type: ignore[arg-type]
            raise SystemExit(f"the orjson floor changed {path}")
        calls: dict[str, Call] = {"chatcodec": ours, "floor": floor}
        if peer is not None:
            try:
                theirs = peer(body)
            except Exception:  # a peer's failure is counted, not fatal
                peer_raised += 1
            else:
                calls["linguafranca"] = peer
                agrees += conversation(target, theirs) == conversation(target, out)  # type: ignore[arg-type]
        direct = direct_request(source, target, body, MODELS[target], MAX_TOKENS) is not None
        # As many loops as fill the budget for the slowest; one loop in a quick run.
        once = max(per_call(call, body, 1) for call in calls.values())
        loops = max(1, int(budget / once)) if budget else 1
        best = dict.fromkeys(calls, float("inf"))
        for _ in range(repeat):  # interleaved: a slow moment hits all three alike
            for name, call in calls.items():
                best[name] = min(best[name], per_call(call, body, loops))
        rows.append({"path": path, "bytes": len(body), "direct": direct, **best})
    return {
        "source": source,
        "target": target,
        "curated": any(path.startswith("tests/") for path, _ in bodies),
        "rows": rows,
        "refused": refused,
        "peer_raised": peer_raised if peer is not None else None,
        "peer_agrees": agrees if peer is not None else None,
    }


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def summary(pair: dict[str, Any]) -> dict[str, Any]:
    """Count, median / p90 / total of the ratios to the floor and to linguafranca."""
    rows = pair["rows"]
    out: dict[str, Any] = {
        "pair": f"{pair['source']}:{pair['target']}",
        "count": len(rows),
        "refused": pair["refused"],
        "direct": sum(row["direct"] for row in rows),
    }
    if pair.get("curated"):
        out["curated"] = True
    if not rows:
        return out
    to_floor = [row["chatcodec"] / row["floor"] for row in rows]
    out["floor"] = {
        "median": statistics.median(to_floor),
        "p90": p90(to_floor),
        "total": sum(row["chatcodec"] for row in rows) / sum(row["floor"] for row in rows),
    }
    out["chatcodec_seconds"] = sum(row["chatcodec"] for row in rows)
    if pair["peer_raised"] is not None:
        both = [row for row in rows if "linguafranca" in row]
        out["peer_raised"] = pair["peer_raised"]
        out["peer_agrees"] = pair["peer_agrees"]
        out["peer_count"] = len(both)
        if both:
            to_peer = [row["chatcodec"] / row["linguafranca"] for row in both]
            out["linguafranca"] = {
                "median": statistics.median(to_peer),
                "p90": p90(to_peer),
                "total": sum(row["chatcodec"] for row in both)
                / sum(row["linguafranca"] for row in both),
            }
            out["faster"] = sum(r < 1 for r in to_peer)
    return out


def table(summaries: list[dict[str, Any]], header: str) -> list[str]:
    lines = [
        header,
        "",
        "![conversion over the recorded corpus](charts/distribution.png)",
        "",
        "| pair | requests | direct | vs floor: median / p90 / total | vs linguafranca: median "
        "/ p90 / total | faster than linguafranca | goals |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        source, target = s["pair"].split(":")
        curated = " (curated bodies)" if s.get("curated") else ""
        name = f"{LABEL[source]}{curated} -> {LABEL[target]}"
        if not s["count"]:
            lines.append(f"| {name} | 0 ({s['refused']} refused) | | | | | |")
            continue
        f = s["floor"]
        goals = ["median ≤ 6x floor: " + ("met" if f["median"] <= GOAL_FLOOR_MEDIAN else "**no**")]
        peer = faster = "-"
        if "linguafranca" in s:
            p = s["linguafranca"]
            peer = f"{p['median']:.2f}x / {p['p90']:.2f}x / {p['total']:.2f}x"
            faster = f"{s['faster']} of {s['peer_count']}"
            if s["peer_raised"]:
                faster += f" (it raised on {s['peer_raised']})"
            faster += f"; its answer holds chatcodec's conversation on {s['peer_agrees']}"
            goals.append("total ≤ 1x: " + ("met" if p["total"] <= GOAL_PEER_TOTAL else "**no**"))
            goals.append("p90 ≤ 1.5x: " + ("met" if p["p90"] <= GOAL_PEER_P90 else "**no**"))
        elif s.get("peer_raised"):
            faster = f"it raised on all {s['peer_raised']}"
        count = f"{s['count']}" + (f" ({s['refused']} refused)" if s["refused"] else "")
        lines.append(
            f"| {name} | {count} | {s['direct']} | {f['median']:.2f}x / {f['p90']:.2f}x / "
            f"{f['total']:.2f}x | {peer} | {faster} | {'; '.join(goals)} |"
        )
    return lines


def draw(pairs: list[dict[str, Any]], path: Path) -> None:
    """Per pair, the spread of chatcodec's time over the floor's and over linguafranca's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = [p for p in pairs if p["rows"]]
    names = [f"{LABEL[p['source']]} -> {LABEL[p['target']]}" for p in pairs]
    to_floor = [[r["chatcodec"] / r["floor"] for r in p["rows"]] for p in pairs]
    peer_pairs = [
        (n, [r["chatcodec"] / r["linguafranca"] for r in p["rows"] if "linguafranca" in r])
        for n, p in zip(names, pairs, strict=True)
    ]
    peer_pairs = [(n, v) for n, v in peer_pairs if v]
    fig, axes = plt.subplots(
        2,
        1,
        figsize=(8, 0.26 * (len(names) + len(peer_pairs)) + 2.2),
        gridspec_kw={"height_ratios": [max(len(names), 1), max(len(peer_pairs), 1)]},
    )
    specs = [
        (axes[0], names, to_floor, GOAL_FLOOR_MEDIAN, "chatcodec / orjson floor, per request"),
        (
            axes[1],
            [n for n, _ in peer_pairs],
            [v for _, v in peer_pairs],
            GOAL_PEER_TOTAL,
            "chatcodec / linguafranca's Rust core, per request",
        ),
    ]
    for axis, labels, values, goal, title in specs:
        if values:
            axis.boxplot(
                values[::-1],
                orientation="horizontal",
                whis=(10, 90),
                showfliers=True,
                flierprops={"markersize": 2, "alpha": 0.4},
                medianprops={"color": "#d62728"},
            )
            axis.set_yticks(range(1, len(labels) + 1), labels[::-1])
        axis.set_xscale("log")
        axis.axvline(goal, color="#2ca02c", linestyle="--", linewidth=1)
        axis.set_title(title, fontsize=9, loc="left")
        axis.tick_params(labelsize=7)
    axes[1].set_xlabel(
        "ratio, lower is better (log scale): box from p25 to p75, red line the median, whiskers "
        "p10 to p90,\ndots beyond; green: the goal (median 6x the floor; total 1x linguafranca)",
        fontsize=7,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats of one call each")
    parser.add_argument("--repeat", type=int, default=None, help="timings per request (7)")
    parser.add_argument("--budget", type=float, default=None, help="seconds a timing (0.001)")
    parser.add_argument("--pair", action="append", default=[], help="source:target, repeatable")
    parser.add_argument("--record", action="store_true", help="publish the table and chart")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    if not (CORPUS / "MANIFEST.tsv").is_file():
        print(f"the recorded corpus is not at {CORPUS}: the distribution is not measured")
        return
    repeat = args.repeat or (3 if args.quick else 7)
    budget = args.budget if args.budget is not None else (0.0 if args.quick else 0.001)
    bodies = recorded_requests(CORPUS)
    wanted = [tuple(p.split(":", 1)) for p in args.pair] or [
        (s, t) for s in FAMILIES for t in FAMILIES if s != t
    ]
    pairs = []
    started = time.perf_counter()
    for source, target in wanted:
        pair = measure_pair(source, target, bodies[source], repeat, budget)
        pairs.append(pair)
        s = summary(pair)
        peer = s.get("linguafranca")
        print(
            f"{source:>16} -> {target:<16} {s['count']:4d} requests"
            + (
                f"  floor median {s['floor']['median']:5.2f}x p90 {s['floor']['p90']:5.2f}x"
                f" total {s['floor']['total']:5.2f}x"
                if s["count"]
                else ""
            )
            + (f"  linguafranca total {peer['total']:.2f}x p90 {peer['p90']:.2f}x" if peer else ""),
            flush=True,
        )
    summaries = [summary(p) for p in pairs]
    load = os.getloadavg()
    header = (
        f"Every recorded request of each family converted to each other family "
        f"({sum(s['count'] for s in summaries):,} conversions); per request, best of {repeat} "
        f"interleaved timings{'' if not budget else f' of about {budget * 1e3:g} ms'}; "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
        f"{load[0]:.1f} at the end (a shared machine: read the ratios, which are from one run, "
        f"not the times). Ratios are chatcodec's time over the other's; total is sum over sum. "
        f"Produced by `perf/bench_distribution.py{' --quick' if args.quick else ''}`."
    )
    report = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "repeat": repeat,
        "budget": budget,
        "quick": args.quick,
        "seconds": time.perf_counter() - started,
        "load_average": load,
        "summaries": summaries,
        "pairs": pairs,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=1) + "\n")
    draw(pairs, RESULT_CHART)
    lines = table(summaries, header)
    print("\n".join(lines))
    if args.record:
        # The published record: the summaries and each request's two ratios, not every time.
        kept = {key: value for key, value in report.items() if key != "pairs"}
        kept["ratios"] = {
            f"{p['source']}:{p['target']}": [
                [round(r["chatcodec"] / r["floor"], 3)]
                + ([round(r["chatcodec"] / r["linguafranca"], 3)] if "linguafranca" in r else [])
                for r in p["rows"]
            ]
            for p in pairs
        }
        RECORDED.parent.mkdir(exist_ok=True)
        RECORDED.write_text(json.dumps(kept, separators=(",", ":")) + "\n")
        draw(pairs, CHART)
        text = README.read_text()
        if START in text:
            head, rest = text.split(START, 1)
            tail = rest.split(END, 1)[1]
            README.write_text(f"{head}{START}\n" + "\n".join(lines) + f"\n{END}{tail}")


if __name__ == "__main__":
    main()
