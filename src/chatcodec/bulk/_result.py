"""What a bulk run gives back: output records, problems by line, and counts."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["KINDS", "BulkResult", "Kind", "LineProblem", "Stage"]

Kind = Literal["request", "response", "transcript", "batch", "sharegpt"]
"""What each input record is."""

KINDS: tuple[Kind, ...] = ("request", "response", "transcript", "batch", "sharegpt")

Stage = Literal["read", "convert", "loss", "preflight", "order"]
"""Where a problem was found: reading the line, converting it, a loss, the
target's preflight, or the ordering rules."""


class LineProblem(msgspec.Struct, frozen=True, omit_defaults=True):
    """One problem of one input line, by JSON path and rule, never by content.

    Parameters
    ----------
    line : int
        1-based line (or record, for a JSON array) of the input.
    path : str
        JSON path inside that record.
    rule : str
        The rule broken, or the reason something was lost.
    severity : {"error", "warning"}
        ``"error"``: the line was not converted (or, from ``check_request``,
        the target would refuse it). ``"warning"``: it was, with this noted.
    stage : {"read", "convert", "loss", "preflight", "order"}
        Where it was found.
    content : str, optional
        The input line itself, only when asked for (``include_content``).
    """

    line: int
    path: str
    rule: str
    severity: Literal["error", "warning"]
    stage: Stage
    content: str | None = None

    def __str__(self) -> str:
        return f"{self.severity}: {self.rule} - at line {self.line}, `{self.path}`"


class BulkResult(msgspec.Struct, omit_defaults=True):
    """The outcome of :func:`chatcodec.convert_lines`: every line accounted for.

    ``lines == blank + converted + lossy + failed + refused + unread``:
    ``refused`` lines converted into a record the target's own rules refuse
    (left out of ``records`` unless the run keeps them), ``unread`` is what a
    strict run left after its first failure. ``records`` holds one record for
    each converted or lossy line (and each kept refused one), in input order.

    Attributes
    ----------
    records : list of bytes
        The converted records, one JSON document each (no newline), in input order.
    problems : list of LineProblem
        Every failure, loss and preflight finding, by line.
    kind : str
        The kind the records were read as.
    lines, blank, converted, lossy, failed, unread : int
        How many input lines there were, and what became of each.
    losses : dict of str to int
        How many times each reason for a loss was met.
    refusals : dict of str to int
        How many times each rule refused a record (with its path where that
        is a top-level field, as ``$.max_tokens``).
    ids : list of (int, int)
        For a batch, each converted line's number and its id's 64-bit digest
        (:func:`id_key`): a driver that runs chunks apart finds repeats
        across them.
    refused : int
        How many lines converted into a record that the target would refuse
        (its preflight, or the ordering rules a provider enforces).
    kept : int
        How many of those were written all the same (``keep_refused``).
    duplicates : int
        Batch lines whose id repeats an earlier line's (a provider refuses
        the whole batch); counted by the command, which sees every line.
    """

    records: list[bytes] = msgspec.field(default_factory=list)
    problems: list[LineProblem] = msgspec.field(default_factory=list)
    kind: str = ""
    lines: int = 0
    blank: int = 0
    converted: int = 0
    lossy: int = 0
    failed: int = 0
    unread: int = 0
    refused: int = 0
    kept: int = 0
    duplicates: int = 0
    losses: dict[str, int] = msgspec.field(default_factory=dict)
    refusals: dict[str, int] = msgspec.field(default_factory=dict)
    ids: list[tuple[int, int]] = msgspec.field(default_factory=list)

    def __repr__(self) -> str:
        # Records and problems are left out: records are content, and a
        # run's problems may number millions.
        counts = ", ".join(
            f"{name}={getattr(self, name)}"
            for name in ("lines", "converted", "lossy", "failed", "refused", "blank", "unread")
        )
        return f"BulkResult(kind={self.kind!r}, {counts}, records=<{len(self.records)}>)"

    @property
    def ok(self) -> bool:
        """Whether every record was written and is one the target accepts."""
        return not (self.failed or self.refused or self.unread or self.duplicates)

    def counts(self) -> dict[str, object]:
        """The counts alone, as a JSON-ready dict (records and problems left out)."""
        return {
            "kind": self.kind,
            "lines": self.lines,
            "blank": self.blank,
            "converted": self.converted,
            "lossy": self.lossy,
            "failed": self.failed,
            "unread": self.unread,
            "refused": self.refused,
            "kept_refused": self.kept,
            "duplicate_ids": self.duplicates,
            "losses": dict(sorted(self.losses.items(), key=lambda kv: (-kv[1], kv[0]))),
            "refusals": dict(sorted(self.refusals.items(), key=lambda kv: (-kv[1], kv[0]))),
        }

    def add(self, other: BulkResult, *, keep_records: bool = False) -> None:
        """Add another result's counts (and problems) to this one, in place.

        Records are appended only with ``keep_records``: a driver that has
        written them out keeps memory bounded by leaving them.
        """
        if keep_records:
            self.records.extend(other.records)
        self.problems.extend(other.problems)
        self.kind = self.kind or other.kind
        self.lines += other.lines
        self.blank += other.blank
        self.converted += other.converted
        self.lossy += other.lossy
        self.failed += other.failed
        self.unread += other.unread
        self.refused += other.refused
        self.kept += other.kept
        self.duplicates += other.duplicates
        for reason, count in other.losses.items():
            self.losses[reason] = self.losses.get(reason, 0) + count
        for rule, count in other.refusals.items():
            self.refusals[rule] = self.refusals.get(rule, 0) + count
