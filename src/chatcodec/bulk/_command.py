"""The bulk commands: ``convert``, ``validate`` and ``stats``.

Exit status: 0 when every record was converted into one the target accepts
(or is sound), 1 when some failed, were refused by the target's rules, or
repeat a batch id, or a worker process was killed, 2 for a usage error (a bad
option, a file that cannot be read or written, an output that is the input or
another output, a kind or family that does not fit the input), 130 when
interrupted.
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
from typing import Any, cast

import msgspec

from .._errors import ChatCodecError
from .._lenient import problem_of
from ._core import Plan, repeats
from ._detect import detect, mismatch
from ._families import normalize
from ._inspect import stats_lines, validate_lines
from ._io import Input, Output, UsageError
from ._outcome import FAILED, INTERRUPTED, OK, USAGE, ErrorsFile, exit_status, summaries
from ._pool import CHUNK_LINES, chunks, ranges, run, run_ranges
from ._report import Progress, write_summary
from ._result import BulkResult, Kind

__all__ = ["convert_command", "stats_command", "validate_command"]


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


def _identity(path: str) -> tuple[object, ...]:
    """What a path names: the file where it exists, else its resolved name.

    Links and other spellings of one file compare equal.
    """
    try:
        info = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    return ("file", info.st_dev, info.st_ino)


def check_outputs(source: str, outputs: list[tuple[str, str | None]]) -> str | None:
    """Why these outputs cannot be written (a usage error), or None.

    Each output must be a file in an existing folder, not a folder, not the
    input, and not another output; at most one of them is ``-`` (stdout).
    Checked before anything is opened for writing.
    """
    named = [(option, path) for option, path in outputs if path is not None]
    if sum(path == "-" for _, path in named) > 1:
        return "only one of OUT, --errors and --summary-json may be - (the standard output)"
    seen: dict[tuple[object, ...], str] = {}
    if source != "-":
        seen[_identity(source)] = "IN"
    for option, path in named:
        if path == "-":
            continue
        if os.path.isdir(path):
            return f"{option} {path} is a folder: name a file"
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            return f"cannot write {path}: its folder does not exist"
        key = _identity(path)
        if key in seen:
            return f"{option} {path} is the same file as {seen[key]}: nothing would be left to read"
        seen[key] = option
    return None


def convert_command(args: argparse.Namespace) -> int:
    """``chatcodec convert``: see ``chatcodec convert --help``."""
    if args.jobs is not None and args.jobs < 1:
        return _fail("--jobs must be at least 1")
    if args.chunk_lines is not None and args.chunk_lines < 1:
        return _fail("--chunk-lines must be at least 1")
    if args.max_tokens is not None and args.max_tokens < 1:
        return _fail("--max-tokens must be at least 1")
    if args.model is not None and not args.model.strip():
        return _fail("--model must not be empty")
    outputs = [("OUT", args.output), ("--errors", args.errors)]
    why = check_outputs(args.input, [*outputs, ("--summary-json", args.summary_json)])
    if why is not None:
        return _fail(why)
    if args.engine == "dask":
        from ._dask_command import dask_command

        return dask_command(args)
    # SIGTERM stops the run as Ctrl-C does, from before the output's
    # temporary file exists: whenever it comes, that file is removed.
    previous = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, _on_term)  # inside: a signal at once is caught
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
    try:
        first, records = _peek(source_in.records())
    except ChatCodecError as error:
        source_in.close()
        return _fail(_rule(error))
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
            keep_refused=args.keep_refused,
            tool_call_content=args.tool_call_content,
            structured_output=args.structured_output,
        )
        wrong = None if first is None else mismatch(first, kind, source)
        if wrong is not None:
            raise UsageError(f"{args.input}: the first record is not --from {source}'s: {wrong}")
        errors = ErrorsFile(args.errors)
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
    errors: ErrorsFile,
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
    seen: dict[int, int] = {}  # each batch id's digest, and the line it was first met on
    try:
        with closing(converted()) as results:
            for result, part, read in results:
                repeats(result, seen, plan.target)
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
        errors.commit()
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
    return exit_status(total, keep_refused=args.keep_refused)


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
        stats = stats_lines(source_in.records(), source=args.source, kind=args.kind)
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
    write_summary(f"stats {args.input}", rows, fancy=not args.quiet, stream=sys.stdout)
    return OK
