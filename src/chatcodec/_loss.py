"""What a conversion could not carry: losses, by path and reason."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from ._problems import Problem

__all__ = ["Loss", "LossReport", "a", "cannot_run", "choice_cannot_run"]


def a(word: str | None) -> str:
    """``word`` after its indefinite article, for loss reasons: ``"an openai"``.

    By the first letter, and "an" before ``mcp`` (said em-see-pee); ``None``
    (a part no provider claims) reads "an unattributed".
    """
    if word is None:
        return "an unattributed"
    first = word[:1].lower()
    return f"an {word}" if first in "aeiou" or word.lower().startswith("mcp") else f"a {word}"


def cannot_run(provider: str, target: str) -> str:
    """The reason ``target`` leaves out a tool only ``provider`` runs (a built-in tool).

    Every encoder, and the direct path, reports it in these words.
    """
    return f"{a(provider)} tool {target} cannot run"


def choice_cannot_run(target: str) -> str:
    """The reason ``target`` leaves out a tool choice that needs the tools it left out."""
    return f"a tool choice for tools {target} cannot run"


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
    """What a conversion left out, and what the target would refuse.

    Iterating and ``len`` give the losses. ``problems`` holds what the
    target's own preflight (``check_request``) finds in the converted body,
    by paths in that body's canonical form. The report is falsy only when
    nothing was lost and the preflight found nothing.

    Examples
    --------
    >>> report = LossReport((Loss("$.seed", "gemini has no seed"),))
    >>> bool(report), len(report), str(report.losses[0])
    (True, 1, 'gemini has no seed - at `$.seed`')
    >>> bool(LossReport(problems=(Problem("$.messages", "must not be empty"),)))
    True
    """

    losses: tuple[Loss, ...] = ()
    problems: tuple[Problem, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.losses) or bool(self.problems)

    def __len__(self) -> int:
        return len(self.losses)

    def __iter__(self) -> Iterator[Loss]:
        return iter(self.losses)

    @property
    def paths(self) -> list[str]:
        """The paths of the losses, in order."""
        return [loss.path for loss in self.losses]


def no_reasoning_field(target: str) -> str:
    """The reason an OpenAI Chat dialect ``target`` with no reasoning key leaves reasoning out."""
    return f"{target} has no field for reasoning"


def signature_lost(provider: str | None) -> str:
    """The reason reasoning written as text alone loses ``provider``'s signature."""
    return f"{a(provider)} reasoning signature"


def unchecked_signature(provider: str | None, target: str) -> str:
    """The reason ``target`` leaves out reasoning ``provider`` signed, which it cannot check."""
    return f"reasoning signed by {provider}, which {target} cannot check"


FOREIGN_SIGNATURE = "a reasoning signature made by another provider"
"""The reason a target that writes reasoning as its own leaves another provider's signature out."""


def block_lost(provider: str | None, target: str) -> str:
    """The reason ``target`` leaves out a block only ``provider`` reads (an opaque part)."""
    return f"{a(provider)} block {target} cannot carry"


def part_lost(target: str, kind: str) -> str:
    """The reason ``target`` leaves out a part of ``kind`` it has no form for."""
    return f"{target} cannot carry {a(kind)} part"
