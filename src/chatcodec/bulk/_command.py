"""The bulk commands: ``convert``, ``validate`` and ``stats``.

Exit status: 0 when every record was converted (or is sound), 1 when some
failed or a worker process was killed, 2 for a usage error (a bad option, a
file that cannot be read, a kind that cannot be told), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import sys
import tempfile
import time
from collections.abc import Generator, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from pathlib import Path
from typing import IO, Any, cast

import msgspec

from .._errors import ChatCodecError
from .._lenient import problem_of
from ._core import Plan
from ._detect import detect
from ._families import normalize
from ._inspect import stats_lines, validate_lines
from ._io import Input, Output, UsageError
from ._pool import CHUNK_LINES, chunks, ranges, run, run_ranges
from ._report import Progress, summary_rows, write_summary
from ._result import BulkResult, Kind, LineProblem

__all__ = ["convert_command", "stats_command", "validate_command"]

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130
_PROBLEM = msgspec.json.Encoder()


def _fail(message: str) -> int:
    print(f"chatcodec: error: {message}", file=sys.stderr)
    return USAGE


def _rule(error: ChatCodecError) -> str:
    return problem_of(error, "$").rule if not isinstance(error, UsageError) else str(error)


def _on_term(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _peek(records: Iterator[bytes]) -> tuple[bytes | None, Iterator[bytes]]:
    """The first non-blank record, and all the records (that one included)."""
    held: list[bytes] = []
    for record in records:
        held.append(record)
        if record.strip():
            return record, itertools.chain(held, records)
    return None, iter(held)


class _Errors:
    """The --errors file: one JSON line per problem, content only when asked."""

    def __init__(self, path: str | None) -> None:
        self.file: IO[bytes] | None = None
        if path is not None:
            try:
                self.file = open(path, "wb")  # noqa: SIM115  # closed by close()
            except OSError as exc:
                raise UsageError(f"cannot write {path}: {exc.strerror}") from None

    def write(self, problems: list[LineProblem]) -> None:
        if self.file is not None and problems:
            self.file.write(b"".join(_PROBLEM.encode(p) + b"\n" for p in problems))

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def _first_errors(result: BulkResult, limit: int = 5) -> None:
    shown = [p for p in result.problems if p.severity == "error"][:limit]
    for problem in shown:
        print(f"  {problem}", file=sys.stderr)


def convert_command(args: argparse.Namespace) -> int:
    """``chatcodec convert``: see ``chatcodec convert --help``."""
    if args.jobs is not None and args.jobs < 1:
        return _fail("--jobs must be at least 1")
    if args.chunk_lines is not None and args.chunk_lines < 1:
        return _fail("--chunk-lines must be at least 1")
    if args.engine == "dask":
        from ._dask_command import dask_command

        return dask_command(args)
    # SIGTERM stops the run as Ctrl-C does, from before the output's
    # temporary file exists: whenever it comes, that file is removed.
    previous = signal.signal(signal.SIGTERM, _on_term)
    try:
        return _convert(args)
    except KeyboardInterrupt:
        print("chatcodec: interrupted; no output written", file=sys.stderr)
        return INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)


def _convert(args: argparse.Namespace) -> int:
    try:
        source = normalize(args.source)
        normalize(args.target)  # names checked before any file is opened
        source_in = Input(args.input)
    except ChatCodecError as error:
        return _fail(_rule(error))
    first, records = _peek(source_in.records())
    kind = args.kind
    why = "given"
    if kind is None and first is not None:
        try:
            kind, why = detect(first)
        except ChatCodecError as error:
            return _fail(f"{args.input}: {_rule(error)}")
    kind = cast(Kind, kind or "request")
    try:
        plan = Plan.make(
            source,
            args.target,
            kind,
            model=args.model,
            max_tokens=args.max_tokens,
            strict=args.strict,
            include_content=args.include_content,
        )
        errors = _Errors(args.errors)
        out = Output(args.output)
    except ChatCodecError as error:
        why_text = f" (kind {kind}: {why})" if why != "given" else ""
        return _fail(_rule(error) + why_text)
    try:
        return _run(args, source_in, records, plan, kind, why, errors, out)
    except BaseException:
        out.abort()
        raise
    finally:
        errors.close()
        source_in.close()


def _run(
    args: argparse.Namespace,
    source_in: Input,
    records: Iterator[bytes],
    plan: Plan,
    kind: Kind,
    why: str,
    errors: _Errors,
    out: Output,
) -> int:
    total = BulkResult(kind=kind)
    progress = Progress(source_in.size, enabled=not args.quiet)
    start = time.monotonic()
    fed = 0
    jobs = args.jobs or os.cpu_count() or 1
    options = msgspec.structs.asdict(plan)

    def parts() -> Iterator[tuple[int, list[bytes]]]:
        nonlocal fed
        for part in chunks(records, lines=args.chunk_lines or CHUNK_LINES):
            fed += len(part[1])
            yield part

    packed = jobs > 1 and out.compression == "gz"  # the workers compress their parts

    def converted() -> Generator[tuple[BulkResult, Path | None, int], None, None]:
        """Each chunk's result, its part file (or None: the records are in it), bytes read."""
        if not args.strict and source_in.plain:
            # Chunks of the file read by their converter (with jobs, a worker,
            # which writes a part file), not line by line here.
            source_in.close()
            cuts = ranges(args.input, lines=args.chunk_lines)
            folder = out.folder or Path(tempfile.gettempdir())
            work = run_ranges(args.input, cuts, options, jobs, folder, packed=packed)
            with closing(work) as done:
                yield from done
            return
        with closing(run(parts(), options, jobs)) as results:
            for result in results:
                yield result, None, source_in.bytes_read

    read = 0
    try:
        with closing(converted()) as results:
            for result, part, read in results:
                if part is None:
                    out.write(result.records)
                    result.records = []
                else:
                    out.append(part, packed=packed)
                errors.write(result.problems)
                total.add(result)
                total.problems = [p for p in total.problems if p.severity == "error"][:5]
                progress.update(total.lines - total.blank, read)
                if args.strict and result.failed:
                    break
        if args.strict and total.failed:
            # All or nothing: what was read after the failure is counted, not converted.
            rest = sum(1 for _ in records)
            total.unread += fed - total.lines + rest
            total.lines = fed + rest
            out.abort()
        else:
            out.commit()
    except KeyboardInterrupt:
        progress.close()
        raise
    except BrokenProcessPool:
        out.abort()
        progress.close()
        print("chatcodec: a worker process was stopped; no output written", file=sys.stderr)
        return FAILED
    except ChatCodecError as error:
        out.abort()
        progress.close()
        return _fail(f"{args.input}: {_rule(error)}")
    progress.close()
    seconds = time.monotonic() - start
    summary = total.counts() | {
        "source": plan.source,
        "target": plan.target,
        "kind_detected_from": why,
        "seconds": round(seconds, 3),
        "bytes_read": max(read, source_in.bytes_read),
    }
    summaries(args, summary, total, f"{plan.source} -> {plan.target} ({kind}): {args.input}")
    return FAILED if total.failed else OK


def summaries(
    args: argparse.Namespace, summary: dict[str, Any], total: BulkResult, title: str
) -> None:
    """Write --summary-json and print the summary table."""
    if args.summary_json:
        with open(args.summary_json, "wb") as f:
            f.write(msgspec.json.format(msgspec.json.encode(summary)) + b"\n")
    seconds = summary.get("seconds", 0)
    rate = summary["bytes_read"] / 1e6 / max(seconds, 1e-9)
    caption = f"{seconds:.2f} s, {rate:.1f} MB/s"
    write_summary(title, summary_rows(total), fancy=not args.quiet, caption=caption)
    if total.failed and not args.errors:
        print("first failures (pass --errors FILE for all):", file=sys.stderr)
        _first_errors(total)


def validate_command(args: argparse.Namespace) -> int:
    """``chatcodec validate``: see ``chatcodec validate --help``."""
    try:
        source_in = Input(args.input)
    except ChatCodecError as error:
        return _fail(_rule(error))
    try:
        result, name = validate_lines(
            source_in.records(), source=args.source, kind=args.kind, policy=args.policy
        )
    except ChatCodecError as error:
        return _fail(f"{args.input}: {_rule(error)}")
    finally:
        source_in.close()
    for problem in result.problems:
        print(f"{args.input}: {problem} ({problem.stage})")
    rows = [
        ("records", f"{result.lines - result.blank:,}"),
        ("sound", f"{result.converted:,}"),
        ("with errors", f"{result.failed:,}"),
        ("problems", f"{len(result.problems):,}"),
    ]
    title = f"validate {args.input}: {result.kind or 'empty'} records read as {name or '-'}"
    write_summary(title, rows, fancy=not args.quiet)
    return FAILED if result.failed else OK


def stats_command(args: argparse.Namespace) -> int:
    """``chatcodec stats``: see ``chatcodec stats --help``."""
    try:
        source_in = Input(args.input)
    except ChatCodecError as error:
        return _fail(_rule(error))
    try:
        stats = stats_lines(source_in.records())
    except ChatCodecError as error:
        return _fail(f"{args.input}: {_rule(error)}")
    finally:
        source_in.close()
    if args.json:
        print(msgspec.json.encode(stats).decode())
        return OK
    rows: list[tuple[str, str]] = []
    for key, value in stats.items():
        if isinstance(value, dict):
            for sub, count in value.items():
                rows.append((f"{key.replace('_', ' ')}: {sub}", f"{count:,}"))
        else:
            rows.append((key.replace("_", " "), f"{value:,}"))
    write_summary(f"stats {args.input}", rows, fancy=True, stream=sys.stdout)
    return OK
