"""What a conversion could not carry: losses, by path and reason."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

__all__ = ["Loss", "LossReport"]


class Loss(msgspec.Struct, frozen=True):
    """One field or block the target cannot carry.

    Parameters
    ----------
    path : str
        JSON path in the canonical form, e.g. ``"$.messages[2].content[0]"``.
    reason : str
        Why it is lost, e.g. ``"anthropic cannot carry an audio part"``.
    """

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.reason} - at `{self.path}`"


class LossReport(msgspec.Struct, frozen=True):
    """Everything a conversion left out; empty (and falsy) when nothing was.

    Examples
    --------
    >>> report = LossReport((Loss("$.seed", "gemini has no seed"),))
    >>> bool(report), len(report), str(report.losses[0])
    (True, 1, 'gemini has no seed - at `$.seed`')
    """

    losses: tuple[Loss, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.losses)

    def __len__(self) -> int:
        return len(self.losses)

    def __iter__(self) -> Iterator[Loss]:
        return iter(self.losses)

    @property
    def paths(self) -> list[str]:
        """The paths of the losses, in order."""
        return [loss.path for loss in self.losses]
