"""How a bulk run ends: its exit status, its summary, and its errors file.

Shared by the local command (:mod:`._command`) and the Dask one
(:mod:`._dask_command`), which import it and not each other.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from ._io import Output
from ._report import summary_rows, write_summary
from ._result import BulkResult, LineProblem

__all__ = [
    "FAILED",
    "INTERRUPTED",
    "OK",
    "USAGE",
    "ErrorsFile",
    "exit_status",
    "summaries",
]

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130
_PROBLEM = msgspec.json.Encoder()


class ErrorsFile:
    """The --errors file: one JSON line per problem, content only when asked.

    Written beside its path and renamed there at the end, as the output is:
    an interrupted or failed run leaves none. ``-`` is the standard output.
    """

    def __init__(self, path: str | None) -> None:
        self.out: Output | None = None
        if path is not None:
            self.out = Output(path)

    def write(self, problems: list[LineProblem]) -> None:
        if self.out is not None and problems:
            self.out.stream.write(b"".join(_PROBLEM.encode(p) + b"\n" for p in problems))

    def commit(self) -> None:
        if self.out is not None:
            self.out.commit()

    def close(self) -> None:
        """Remove what was written unless committed."""
        if self.out is not None:
            self.out.abort()


def _first_errors(result: BulkResult, limit: int = 5) -> None:
    shown = [p for p in result.problems if p.severity == "error"][:limit]
    for problem in shown:
        print(f"  {problem}", file=sys.stderr)


def exit_status(total: BulkResult, *, keep_refused: bool) -> int:
    """0 only when every line became a record the target accepts (or was blank).

    With ``--keep-refused`` the records the target refuses are written, and
    do not change the status.
    """
    refused = total.refused and not keep_refused
    return FAILED if total.failed or refused or total.duplicates or total.unread else OK


_HINTS = (
    ("(at $.max_tokens)", "pass --max-tokens N"),
    ("(at $.model)", "pass --model NAME (the target's model)"),
)


def summaries(
    args: argparse.Namespace, summary: dict[str, Any], total: BulkResult, title: str
) -> None:
    """Write --summary-json and print the summary table."""
    if args.summary_json == "-":
        sys.stdout.buffer.write(msgspec.json.format(msgspec.json.encode(summary)) + b"\n")
        sys.stdout.buffer.flush()
    elif args.summary_json:
        with open(args.summary_json, "wb") as f:
            f.write(msgspec.json.format(msgspec.json.encode(summary)) + b"\n")
    seconds = summary.get("seconds", 0)
    rate = summary["bytes_read"] / 1e6 / max(seconds, 1e-9)
    caption = f"{seconds:.2f} s, {rate:.1f} MB/s"
    write_summary(title, summary_rows(total), fancy=not args.quiet, caption=caption)
    for where, hint in _HINTS:
        count = sum(n for rule, n in total.refusals.items() if rule.endswith(where))
        if count:
            what = where[len("(at $.") : -1]
            print(f"hint: {count:,} records were refused for their {what}: {hint}", file=sys.stderr)
    if (total.failed or total.refused or total.duplicates) and not args.errors:
        print("first problems (pass --errors FILE for all):", file=sys.stderr)
        _first_errors(total)
