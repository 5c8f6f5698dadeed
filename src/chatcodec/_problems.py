"""Problems: what a lenient decode skipped or a check found, as values."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["Problem", "Severity"]

Severity = Literal["error", "warning"]


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """One thing found wrong, by JSON path and rule, never by content.

    Parameters
    ----------
    path : str
        JSON path of the offending value, e.g. ``"$[3].content"``.
    rule : str
        The rule it breaks.
    severity : {"error", "warning"}
        ``"error"``: the item was refused or skipped. ``"warning"``: it was
        kept (perhaps repaired), or a provider may refuse it.
    line : int, optional
        1-based line of a JSONL stream the path is in.
    """

    path: str
    rule: str
    severity: Severity = "error"
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}, `{self.path}`" if self.line else f"`{self.path}`"
        return f"{self.severity}: {self.rule} - at {where}"
