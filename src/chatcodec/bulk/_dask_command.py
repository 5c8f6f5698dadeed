"""``chatcodec convert --engine dask``: the Dask driver behind the command line.

The partitions are written by the workers into a directory beside OUT, then
joined in order into OUT (through the same temporary file and rename as
every run), so the command gives one file whichever engine ran it. With
``--scheduler`` the workers of that cluster do the work and must be able to
read IN and write beside OUT; without it a ``distributed.LocalCluster`` of
``--jobs`` worker processes, bound to 127.0.0.1, runs for the command.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

from .._errors import ChatCodecError
from .._lenient import problem_of
from ._io import Output, UsageError
from ._outcome import ErrorsFile, exit_status, summaries

__all__ = ["dask_command"]


def _fail(message: str) -> int:
    print(f"chatcodec: error: {message}", file=sys.stderr)
    return 2


def _client(args: argparse.Namespace) -> tuple[Any, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError(
            "--engine dask needs dask and distributed: pip install 'chatcodec[dask]'"
        ) from None
    client: Any = Client  # distributed's constructors carry no annotations
    if args.scheduler:
        return client(args.scheduler), None
    # The workers are started ignoring SIGINT (they inherit it): Ctrl-C goes
    # to the whole process group, and this process alone stops the run,
    # closing the cluster, rather than every worker printing its traceback.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        cluster = cast(Any, LocalCluster)(
            n_workers=args.jobs or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # Its HTTP server on loopback at a free port: with no address it takes
            # 8787, which another cluster or a notebook's dashboard may hold.
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,  # a worker's warnings are not the run's summary
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    return client(cluster), cluster


_LOUD = ("asyncio", "distributed", "tornado")


def _quiet() -> None:
    """Say nothing more of a run being stopped: the tasks it cancels, the workers it loses.

    Each of those libraries' loggers, its children too: distributed sets some of
    them a level of their own (``tornado.application``, ``distributed.client``),
    which a parent's does not override.
    """
    names = [n for n in logging.root.manager.loggerDict if n.split(".", 1)[0] in _LOUD]
    for name in (*_LOUD, *names):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


class _Interrupt:
    """Ctrl-C during a run, remembered: a library that swallows the interrupt stops nothing.

    Dask and distributed run code of their own in this process while a run
    waits; an interrupt raised there could be caught and the run go on to
    write its output. The handler raises it as Python's does, and says so:
    :meth:`check` raises it again once the run returns.
    """

    __slots__ = ("hook", "previous", "seen")

    def __init__(self) -> None:
        self.seen = False
        self.previous: Any = None
        self.hook: Any = None

    def watch(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
            # The handler may run inside a callback Python calls with no caller
            # to raise into (distributed's garbage-collection callback): Python
            # prints the interrupt there as "ignored", with its traceback. It is
            # not ignored (check raises it again): print nothing for it.
            self.hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable

    def _handle(self, signum: int, frame: object) -> None:
        self.seen = True
        # Quiet first: distributed answers the interrupt with a callback on its
        # loop's thread (it cancels what it waited for), which can fail there and
        # be logged with its traceback before the run's own handler runs.
        _quiet()
        raise KeyboardInterrupt

    def _unraisable(self, unraisable: Any) -> None:
        if self.seen and unraisable.exc_type is KeyboardInterrupt:
            return
        self.hook(unraisable)

    def check(self) -> None:
        if self.seen:
            raise KeyboardInterrupt

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None
        if self.hook is not None:
            sys.unraisablehook = self.hook
            self.hook = None


def dask_command(args: argparse.Namespace) -> int:
    """Run ``convert`` on a Dask cluster; the same summary and exit status."""
    if args.input == "-" or args.output == "-":
        return _fail("--engine dask reads and writes files, not - (stdin or stdout)")
    if not Path(args.input).exists():
        return _fail(f"cannot read {args.input}: No such file or directory")
    if args.strict:
        return _fail("--strict is not available with --engine dask (partitions run at once)")
    target = Path(args.output)
    parts = target.with_name(f".{target.name}.{os.getpid()}.parts")
    # The client's tasks that a stop cancels are logged by asyncio as they are
    # collected, before any handler here runs: a run's summary says what
    # happened, asyncio's log of them says nothing to the user.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
    start = time.monotonic()
    client = cluster = None
    out: Output | None = None
    stop = _Interrupt()
    try:
        from ..dask import convert_files

        client, cluster = _client(args)
        stop.watch()
        parts.mkdir()
        total = convert_files(
            args.input,
            str(parts / "*.jsonl"),
            source=args.source,
            target=args.target,
            kind=args.kind,
            model=args.model,
            max_tokens=args.max_tokens,
            include_content=args.include_content,
            keep_refused=args.keep_refused,
            tool_call_content=args.tool_call_content,
            structured_output=args.structured_output,
            blocksize="16MiB",
        )
        stop.check()
        out = Output(args.output)
        for path in sorted(parts.glob("*.jsonl"), key=lambda p: int(p.stem)):
            if path.stat().st_size <= 1:
                continue  # a partition with no record: Dask writes it as one line break
            with path.open("rb") as f:
                shutil.copyfileobj(f, out.stream, 1 << 20)
        out.commit()
        if args.errors:
            errors = ErrorsFile(args.errors)
            try:
                errors.write(total.problems)
                errors.commit()
            finally:
                errors.close()
    except KeyboardInterrupt:
        _quiet()
        if out is not None:
            out.abort()
        print("chatcodec: interrupted; no output written", file=sys.stderr)
        return 130
    except ChatCodecError as error:
        if out is not None:
            out.abort()
        rule = str(error) if isinstance(error, UsageError) else problem_of(error, "$").rule
        return _fail(rule)
    finally:
        stop.restore()
        shutil.rmtree(parts, ignore_errors=True)
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    seconds = time.monotonic() - start
    summary = total.counts() | {
        "source": args.source,
        "target": args.target,
        "engine": "dask",
        "seconds": round(seconds, 3),
        "bytes_read": Path(args.input).stat().st_size,
    }
    title = f"{args.source} -> {args.target} ({total.kind}, dask): {args.input}"
    summaries(args, summary, total, title)
    return exit_status(total, keep_refused=args.keep_refused)
