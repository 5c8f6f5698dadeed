"""Progress while a run goes, and the summary at its end, on stderr.

With ``rich`` (the ``cli`` extra) and a terminal: a live progress bar and a
table. Piped, with ``--quiet``, or without ``rich``: no progress, and the
summary as plain lines.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from ._result import BulkResult

__all__ = ["Progress", "summary_rows", "write_summary"]


def _rich() -> Any:
    try:
        import rich.console
        import rich.progress
        import rich.table
    except ImportError:
        return None
    return rich


class Progress:
    """Records, MB, MB/s and, when the size is known, the time left."""

    def __init__(self, total: int | None, *, enabled: bool, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.start = time.monotonic()
        self.records = 0
        self._bar: Any = None
        self._plain = False
        self._last = 0.0
        if not enabled or not self.stream.isatty():
            return
        rich = _rich()
        if rich is None:
            self._plain = True
            return
        p = rich.progress
        self._bar = p.Progress(
            p.TextColumn("[bold]{task.description}"),
            p.BarColumn(),
            p.TextColumn("{task.fields[records]:,} records"),
            p.DownloadColumn(),
            p.TransferSpeedColumn(),
            p.TimeRemainingColumn(),
            console=rich.console.Console(file=self.stream),
            transient=False,
        )
        self._task = self._bar.add_task("converting", total=total, records=0)
        # The bar's thread starts with the first update: by then the workers
        # have been forked from a process of one thread (see bulk._pool).
        self._shown = False

    def update(self, records: int, done_bytes: int) -> None:
        """Say how far the run has got."""
        self.records = records
        if self._bar is not None:
            if not self._shown:
                self._bar.start()
                self._shown = True
            self._bar.update(self._task, completed=done_bytes, records=records)
        elif self._plain:
            now = time.monotonic()
            if now - self._last < 0.2:
                return
            self._last = now
            rate = done_bytes / 1e6 / max(now - self.start, 1e-9)
            left = ""
            if self.total and rate > 0:
                left = f", {(self.total - done_bytes) / 1e6 / rate:.0f} s left"
            self.stream.write(
                f"\r{records:,} records, {done_bytes / 1e6:.1f} MB, {rate:.1f} MB/s{left}  "
            )
            self.stream.flush()

    def close(self) -> None:
        """End the display."""
        if self._bar is not None:
            if self._shown:
                self._bar.stop()
        elif self._plain:
            self.stream.write("\n")


def summary_rows(result: BulkResult) -> list[tuple[str, str]]:
    """The summary as (label, value) rows: every line accounted, losses by reason."""
    rows = [
        ("lines", f"{result.lines:,}"),
        ("converted", f"{result.converted:,}"),
        ("converted with losses", f"{result.lossy:,}"),
        ("failed", f"{result.failed:,}"),
        ("blank", f"{result.blank:,}"),
    ]
    if result.unread:
        rows.append(("not read (strict stop)", f"{result.unread:,}"))
    if result.refused:
        label = "refused by the target's rules"
        if result.kept:
            label += f" (of which {result.kept:,} written: --keep-refused)"
        rows.append((label, f"{result.refused:,}"))
    if result.duplicates:
        rows.append(("batch ids repeated", f"{result.duplicates:,}"))
    for rule, count in sorted(result.refusals.items(), key=lambda kv: (-kv[1], kv[0]))[:8]:
        rows.append((f"  refused: {rule}", f"{count:,}"))
    for reason, count in sorted(result.losses.items(), key=lambda kv: (-kv[1], kv[0]))[:12]:
        rows.append((f"  lost: {reason}", f"{count:,}"))
    if len(result.losses) > 12:
        rows.append(("  lost: other reasons", f"{sum(sorted(result.losses.values())[:-12]):,}"))
    return rows


def write_summary(
    title: str,
    rows: list[tuple[str, str]],
    *,
    fancy: bool,
    stream: IO[str] | None = None,
    caption: str | None = None,
) -> None:
    """Print the summary: a rich table on a terminal, plain lines otherwise."""
    stream = stream or sys.stderr
    rich = _rich() if fancy and stream.isatty() else None
    if rich is None:
        print(title, file=stream)
        for label, value in rows:
            print(f"  {value:>10}  {label}", file=stream)
        if caption:
            print(f"  {caption}", file=stream)
        return
    table = rich.table.Table(
        title=title,
        caption=caption,
        show_header=False,
        title_justify="left",
        caption_justify="left",
    )
    table.add_column(style="bold")
    table.add_column(justify="right")
    for label, value in rows:
        table.add_row(label, value)
    rich.console.Console(file=stream).print(table)
